"""What every format shares: the options of a report and the text of a finding's help."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitlint.diagnostics import Diagnostic


@dataclass(frozen=True)
class ReportOptions:
    """How a report is written."""

    unsafe_fixes: bool = False  # whether `--fix` would apply unsafe fixes (`[*]`, help)
    colour: bool = False  # ANSI colours (text formats)
    show_fixes: bool = False  # `full`: each fix's edits under its finding
    root: Path | None = None  # SARIF: the project root its uris are relative to


def fixable(diagnostic: Diagnostic, unsafe_fixes: bool) -> bool:
    """Whether `--fix` would apply this finding's fix (ruff marks only those with [*])."""
    fix = diagnostic.fix
    return fix is not None and (fix.applicability == "safe" or unsafe_fixes)


def help_text(diagnostic: Diagnostic, unsafe_fixes: bool) -> str | None:
    """The `help:` of a finding, the same in every format: its fix when it has one (marked
    when only `--unsafe-fixes` would apply it), else the rule's advice."""
    if diagnostic.fix is not None:
        hint = "" if fixable(diagnostic, unsafe_fixes) else " (unsafe: needs --unsafe-fixes)"
        return diagnostic.fix.message + hint
    return diagnostic.help
