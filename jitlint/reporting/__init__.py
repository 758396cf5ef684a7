"""Output formats. Each formatter takes the run's diagnostics and returns text."""

from __future__ import annotations

from jitlint.reporting.ci_reports import format_gitlab, format_junit, format_rdjson
from jitlint.reporting.github import format_github
from jitlint.reporting.grouped import format_grouped
from jitlint.reporting.json_format import format_json
from jitlint.reporting.lines import format_azure, format_json_lines, format_pylint
from jitlint.reporting.sarif import format_sarif
from jitlint.reporting.text import format_concise, format_full, format_statistics

FORMATS = {
    "full": format_full,
    "concise": format_concise,
    "grouped": format_grouped,
    "json": format_json,
    "json-lines": format_json_lines,
    "sarif": format_sarif,
    "github": format_github,
    "gitlab": format_gitlab,
    "junit": format_junit,
    "pylint": format_pylint,
    "rdjson": format_rdjson,
    "azure": format_azure,
}
# Read by people: coloured, followed by a summary. The others are read by tools and own
# their stream (the summary of `--fix` goes to stderr beside them).
TEXT_FORMATS = ("full", "concise", "grouped")
# Formats that read the source lines of the files with findings.
SOURCE_FORMATS = ("full", "rdjson")

__all__ = ["FORMATS", "SOURCE_FORMATS", "TEXT_FORMATS", "format_statistics"]
