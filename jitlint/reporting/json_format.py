from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from jitlint.diagnostics import Diagnostic
from jitlint.reporting.options import ReportOptions


def format_json(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    """The JSON contract: an array of findings sorted by path, line, column."""
    ordered = sorted(diagnostics, key=Diagnostic.sort_key)
    return json.dumps([d.to_json() for d in ordered], indent=2, ensure_ascii=False) + "\n"
