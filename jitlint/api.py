"""The Python API every front end calls."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jitlint import selection
from jitlint.config import Settings
from jitlint.diagnostics import Diagnostic
from jitlint.engine.linter import lint_text
from jitlint.engine.runner import RuleSets
from jitlint.fixes.engine import FixOutcome, fix_text
from jitlint.model.library.versions import OPTIONS_KEY
from jitlint.notebook import is_notebook


def _codes(
    path: str, select: Iterable[str] | None, ignore: Iterable[str], settings: Settings
) -> frozenset[str]:
    enabled = selection.resolve_layers(
        [
            *settings.selection_layers(),
            selection.Layer(
                [selection.check_selector(s) for s in select] if select is not None else None,
                [],
                [selection.check_selector(s) for s in ignore],
            ),
        ]
    )
    return RuleSets(settings, enabled).codes_for(Path(path))


def _options(settings: Settings) -> dict[str, Any]:
    """The rule options, and the framework versions the config sets (no requirements file
    is read: the API lints text, not a project)."""
    versions = {name: version for name, (version, _) in settings.framework_versions.items()}
    return {**settings.rule_options, OPTIONS_KEY: versions}


def lint_source(
    source: str | bytes,
    path: str = "<string>",
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    settings: Settings | None = None,
) -> list[Diagnostic]:
    """Lint one file's text. `select`/`ignore` take codes, prefixes or `ALL`. A `path`
    ending in `.ipynb` reads `source` as a notebook: findings carry their `cell`.

    Without `settings`, the default rule set runs with default options; with `settings`, its
    selection, per-file ignores (matched against `path`), rule options and framework
    versions (`jax-version`, ...) apply, and `select`/`ignore` act as the command line's
    flags do on top of it.
    """
    settings = settings or Settings(root=Path.cwd())
    codes = _codes(path, select, ignore, settings)
    if is_notebook(path):  # the notebook's JSON; findings carry their cell
        from jitlint.notebook.check import lint_notebook

        return lint_notebook(source, path, codes, _options(settings)).diagnostics
    return lint_text(source, path, codes, _options(settings)).diagnostics


FixResult = FixOutcome


def fix_source(
    source: str,
    path: str = "<string>",
    *,
    unsafe: bool = False,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    settings: Settings | None = None,
) -> FixResult:
    """Apply the fixes for one file's text (a notebook's JSON for a `.ipynb` path).

    Returns `.source` (the new text), `.applied` (the findings fixed) and `.remaining` (the
    findings left, positioned in the new text). Only safe fixes unless `unsafe`; the
    configured `fixable`/`unfixable` apply. The text is returned unchanged when a fix would
    not parse (see `.errors`).
    """
    settings = settings or Settings(root=Path.cwd())
    codes = _codes(path, select, ignore, settings)
    fixable = selection.resolve_layers(
        [selection.Layer(settings.fixable or ["ALL"], [], settings.unfixable)]
    )
    if is_notebook(path):  # the notebook's JSON in and out; only code cells change
        from jitlint.notebook.check import fix_notebook

        fixed = fix_notebook(
            source, path, codes, _options(settings),
            unsafe=unsafe or settings.unsafe_fixes, fixable=fixable,
        )  # fmt: skip
        return FixOutcome(fixed.text, fixed.applied, fixed.remaining, fixed.errors)
    return fix_text(
        source,
        path,
        codes,
        _options(settings),
        unsafe=unsafe or settings.unsafe_fixes,
        fixable=fixable,
    )
