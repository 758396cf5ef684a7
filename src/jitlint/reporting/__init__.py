"""Output formats. Each formatter takes the run's diagnostics and returns text."""

from __future__ import annotations

from jitlint.reporting.json_format import format_json
from jitlint.reporting.text import format_concise, format_full, format_statistics

FORMATS = {"full": format_full, "concise": format_concise, "json": format_json}

__all__ = ["FORMATS", "format_statistics"]
