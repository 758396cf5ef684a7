"""Reports that CI services read as a whole document: `junit` (JUnit XML), `gitlab` (GitLab's
Code Quality report) and `rdjson` (reviewdog's Diagnostic Format).

Paths in `gitlab` are relative to `CI_PROJECT_DIR` when GitLab sets it (as GitLab wants them),
else to the project root, as SARIF's are. In a notebook, lines count within the cell, so each
message says which cell.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jitlint.diagnostics import Diagnostic
from jitlint.reporting.options import ReportOptions, help_text

SOURCE_URL = "https://github.com/jitlint/jitlint"


def _message(d: Diagnostic) -> str:
    return d.message if d.cell is None else f"cell {d.cell}, line {d.line}: {d.message}"


# ---- junit ----------------------------------------------------------------------------------
def format_junit(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    """One `<testsuite>` per file, one failed `<testcase>` per finding (as ruff writes them);
    a run with no findings is one suite with one passing case, so the report is never empty."""
    from xml.etree import ElementTree  # only this format needs it; a lint run need not load it

    ordered = sorted(diagnostics, key=Diagnostic.sort_key)
    suites = ElementTree.Element("testsuites", name="jitlint")
    suites.set("tests", str(max(len(ordered), 1)))
    suites.set("failures", str(len(ordered)))
    suites.set("errors", "0")
    if not ordered:
        suite = ElementTree.SubElement(
            suites, "testsuite", name="jitlint", tests="1", failures="0", errors="0"
        )
        ElementTree.SubElement(suite, "testcase", name="No errors found", classname="jitlint")
    by_path: dict[str, list[Diagnostic]] = {}
    for d in ordered:
        by_path.setdefault(d.path, []).append(d)
    for path, found in by_path.items():
        suite = ElementTree.SubElement(suites, "testsuite", name=path)
        suite.set("tests", str(len(found)))
        suite.set("failures", str(len(found)))
        suite.set("errors", "0")
        suite.set("package", "org.jitlint")
        for d in found:
            case = ElementTree.SubElement(suite, "testcase", name=f"org.jitlint.{d.code}")
            case.set("classname", path)
            case.set("line", str(d.line))
            case.set("column", str(d.column))
            failure = ElementTree.SubElement(case, "failure", message=_message(d))
            failure.set("type", d.code)
            where = f"line {d.line}, col {d.column}"
            if d.cell is not None:
                where = f"cell {d.cell}, {where}"
            failure.text = f"{where}, {d.message}"
    ElementTree.indent(suites)
    body = ElementTree.tostring(suites, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


# ---- gitlab ---------------------------------------------------------------------------------
# GitLab's severities are info, minor, major, critical and blocker.
_GITLAB_SEVERITY = {"error": "major", "warning": "minor"}


def _relative(path: str, root: Path) -> str:
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    return Path(absolute).as_posix() if relative.startswith("..") else Path(relative).as_posix()


def format_gitlab(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    """An array of Code Quality issues. The `fingerprint` hashes the code, the path, the
    message and which occurrence of those three it is, not the line: an issue keeps its
    fingerprint when code above it moves, so GitLab does not report it as new."""
    project = os.environ.get("CI_PROJECT_DIR")
    base = project or (options.root if options is not None else None) or Path.cwd()
    root = Path(os.path.abspath(base))
    seen: dict[tuple[str, str, str], int] = {}
    issues: list[dict[str, Any]] = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        path = _relative(d.path, root)
        identity = (d.code, path, _message(d))
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        digest = hashlib.blake2b(digest_size=16)
        digest.update(json.dumps([*identity, occurrence]).encode())
        issues.append(
            {
                "type": "issue",
                "check_name": d.code,
                "description": f"{d.code}: {_message(d)}",
                "categories": ["Bug Risk"],
                "severity": _GITLAB_SEVERITY[d.severity],
                "fingerprint": digest.hexdigest(),
                "location": {"path": path, "lines": {"begin": d.line, "end": d.end_line}},
            }
        )
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


# ---- rdjson ---------------------------------------------------------------------------------
def _utf8_column(line: str | None, column: int) -> int:
    """reviewdog counts columns in UTF-8 bytes; jitlint counts characters."""
    if line is None:
        return column
    return len(line[: column - 1].encode("utf-8", "surrogatepass")) + 1


def _position(lines: Sequence[str], line: int, column: int) -> dict[str, int]:
    text = lines[line - 1] if 0 < line <= len(lines) else None
    return {"line": line, "column": _utf8_column(text, column)}


def format_rdjson(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    """reviewdog's `rdjson`: one document with a `diagnostics` array; a finding's fix
    becomes `suggestions` (reviewdog posts them as suggested changes)."""
    sources = sources or {}
    unsafe = options is not None and options.unsafe_fixes
    results = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        lines = sources.get(d.where, ())  # a notebook's are by cell
        advice = help_text(d, unsafe)
        message = _message(d) if advice is None else f"{_message(d)}\nhelp: {advice}"
        result: dict[str, Any] = {
            "message": message,
            "location": {
                "path": d.path,
                "range": {
                    "start": _position(lines, d.line, d.column),
                    "end": _position(lines, d.end_line, d.end_column),
                },
            },
            "severity": d.severity.upper(),
            "code": {"value": d.code, "url": d.url},
        }
        if d.fix is not None and d.fix.edits and d.cell is None:
            result["suggestions"] = [
                {
                    "range": {
                        "start": _position(lines, e.line, e.column),
                        "end": _position(lines, e.end_line, e.end_column),
                    },
                    "text": e.content,
                }
                for e in d.fix.edits
            ]
        results.append(result)
    document = {
        "source": {"name": "jitlint", "url": SOURCE_URL},
        "severity": "WARNING",
        "diagnostics": results,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
