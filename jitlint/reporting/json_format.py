from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from jitlint.diagnostics import Diagnostic


def format_json(
    diagnostics: Sequence[Diagnostic], sources: Mapping[str, Sequence[str]] | None = None
) -> str:
    """The JSON contract: an array of findings sorted by path, line, column."""
    ordered = sorted(diagnostics, key=Diagnostic.sort_key)
    return json.dumps([d.to_json() for d in ordered], indent=2, ensure_ascii=False) + "\n"


def format_statistics_json(diagnostics: Sequence[Diagnostic]) -> str:
    """`--statistics --format json`: counts per rule, most frequent first (as ruff does)."""
    counts: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        counts.setdefault(diagnostic.code, []).append(diagnostic)
    rows = sorted(counts.items(), key=lambda item: (-len(item[1]), item[0]))
    return (
        json.dumps(
            [
                {
                    "code": code,
                    "name": found[0].name,
                    "count": len(found),
                    "fixable": any(d.fix is not None for d in found),
                }
                for code, found in rows
            ],
            indent=2,
        )
        + "\n"
    )
