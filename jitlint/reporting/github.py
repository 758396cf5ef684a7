"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=CODE name::message`. GitHub ignores
columns on an annotation spanning several lines, so those carry lines only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from jitlint.diagnostics import Diagnostic
from jitlint.reporting.options import ReportOptions, help_text


def _escape_data(text: str) -> str:
    # The escapes of GitHub's actions toolkit (`escapeData` / `escapeProperty`).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    unsafe_fixes = options is not None and options.unsafe_fixes
    lines = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        where = [f"file={_escape_property(d.path)}", f"line={d.line}"]
        if d.end_line == d.line:
            where += [f"col={d.column}", f"endLine={d.end_line}", f"endColumn={d.end_column}"]
        else:
            where.append(f"endLine={d.end_line}")
        where.append(f"title={_escape_property(f'{d.code} {d.name}')}")
        advice = help_text(d, unsafe_fixes)
        message = d.message if advice is None else f"{d.message}\nhelp: {advice}"
        if d.cell is not None:  # lines count within the cell; say which one
            message = f"cell {d.cell}, line {d.line}: {message}"
        lines.append(f"::{d.severity} {','.join(where)}::{_escape_data(message)}\n")
    return "".join(lines)
