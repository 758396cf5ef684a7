"""The verifier's output: one line per function, a summary, or one JSON document."""

from __future__ import annotations

import json
from typing import Any, TextIO

from jitlint.diagnostics import Diagnostic
from jitlint.verify.results import STATUSES, FunctionResult, summary


def write_text(results: list[FunctionResult], stream: TextIO, quiet: bool = False) -> None:
    for result in sorted(results, key=lambda r: (r.path, r.line, r.function)):
        stream.write(result.line_text() + "\n")
        for check in result.findings:
            stream.write(f"  {check.code} at line {check.line}: {check.status}")
            stream.write(f" ({check.detail})\n" if check.detail else "\n")
    if not quiet:
        stream.write(summary(results))


def fix_status(diagnostic: Diagnostic, results: list[FunctionResult]) -> dict[str, Any] | None:
    """The verification of the function a fix was attributed to (by code and file)."""
    key = f"{diagnostic.code}:{diagnostic.line}"
    for result in results:
        if result.path == diagnostic.path and key in result.fixes:
            return {"function": result.function, "status": result.status, "detail": result.detail}
    return None


def to_json(
    results: list[FunctionResult],
    applied: list[Diagnostic],
    remaining: list[Diagnostic],
) -> str:
    fixes = []
    for diagnostic in applied:
        entry = diagnostic.to_json()
        entry["verification"] = fix_status(diagnostic, results)
        fixes.append(entry)
    counts = {status: sum(1 for r in results if r.status == status) for status in STATUSES}
    document = {
        "functions": [r.to_json() for r in results],
        "fixes": fixes,
        "remaining": [d.to_json() for d in remaining],
        "summary": counts,
    }
    return json.dumps(document, indent=2) + "\n"
