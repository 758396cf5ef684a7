"""The Python API every front end calls."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from jitlint import selection
from jitlint.config import Settings
from jitlint.diagnostics import Diagnostic
from jitlint.engine.linter import lint_text
from jitlint.engine.runner import RuleSets


def lint_source(
    source: str | bytes,
    path: str = "<string>",
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    settings: Settings | None = None,
) -> list[Diagnostic]:
    """Lint one file's text. `select`/`ignore` take codes, prefixes or `ALL`.

    Without `settings`, the default rule set runs with default options; with `settings`, its
    selection, per-file ignores (matched against `path`) and rule options apply, and
    `select`/`ignore` act as the command line's flags do on top of it.
    """
    settings = settings or Settings(root=Path.cwd())
    enabled = selection.resolve_layers(
        [
            selection.Layer(settings.select, settings.extend_select, settings.ignore),
            selection.Layer(
                [selection.check_selector(s) for s in select] if select is not None else None,
                [],
                [selection.check_selector(s) for s in ignore],
            ),
        ]
    )
    codes = RuleSets(settings, enabled).codes_for(Path(path))
    return lint_text(source, path, codes, settings.rule_options).diagnostics
