"""Output formats. Each formatter takes the run's diagnostics and returns text."""

from __future__ import annotations

from jitlint.reporting.github import format_github
from jitlint.reporting.json_format import format_json, format_statistics_json
from jitlint.reporting.sarif import format_sarif
from jitlint.reporting.text import format_concise, format_full, format_statistics

FORMATS = {
    "full": format_full,
    "concise": format_concise,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}

__all__ = ["FORMATS", "format_statistics", "format_statistics_json"]
