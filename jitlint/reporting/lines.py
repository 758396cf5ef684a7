"""One line per finding, for tools that read lines: `json-lines`, `pylint` and `azure`
(Azure Pipelines logging commands).

`pylint` is pylint's parseable template, `path:line: [CODE] message`, which editors and CI
problem matchers read. `azure` writes
`##vso[task.logissue type=error;sourcepath=F;linenumber=L;columnnumber=C;code=CODE]message`,
which Azure Pipelines turns into an annotation. In a notebook the line counts within the cell,
so the message says which cell.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from jitlint.diagnostics import Diagnostic
from jitlint.reporting.options import ReportOptions


def _in_cell(d: Diagnostic, message: str) -> str:
    return message if d.cell is None else f"cell {d.cell}, line {d.line}: {message}"


def format_json_lines(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    """The objects of `--format json`, one per line: a stream a tool can read as it comes."""
    return "".join(
        json.dumps(d.to_json(), ensure_ascii=False) + "\n"
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
    )


def format_pylint(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    lines = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        # A message is one line here: a tool splits the report at newlines.
        message = " ".join(_in_cell(d, d.message).split("\n"))
        lines.append(f"{d.path}:{d.line}: [{d.code}] {message}\n")
    return "".join(lines)


def _escape_azure_data(text: str) -> str:
    # The escapes of the Azure Pipelines agent (`%` first, as `%AZP25`, so that the escapes
    # added after it are not escaped again).
    return text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_azure_property(text: str) -> str:
    return _escape_azure_data(text).replace("]", "%5D").replace(";", "%3B")


def format_azure(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    lines = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        properties = ";".join(
            f"{key}={_escape_azure_property(value)}"
            for key, value in (
                ("type", d.severity),  # Azure's types are `error` and `warning`, as ours
                ("sourcepath", d.path),
                ("linenumber", str(d.line)),
                ("columnnumber", str(d.column)),
                ("code", d.code),
            )
        )
        message = _escape_azure_data(_in_cell(d, d.message))
        lines.append(f"##vso[task.logissue {properties};]{message}\n")
    return "".join(lines)
