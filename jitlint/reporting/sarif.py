"""`--format sarif`: SARIF 2.1.0 for code scanning (GitHub, GitLab, IDE viewers).

One run, with every registered rule in the driver (so a viewer can explain any code) and one
result per finding, with its region and, when it has one, its fix. Paths are relative to the
project root (`%SRCROOT%`: the root the front end names, else the working directory), as code
scanning wants them relative to the checkout, whichever subdirectory jitlint ran from; a file
outside it gets an absolute `file:` uri. In a notebook, a region's lines count within the code
cell its `properties.cell` names.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jitlint.diagnostics import Diagnostic, Edit, rule_url
from jitlint.reporting.options import ReportOptions, help_text
from jitlint.version import __version__

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/jitlint/jitlint"
_LEVELS = {"error": "error", "warning": "warning"}


def format_sarif(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions | None = None,
) -> str:
    from jitlint import catalogue
    from jitlint.rules import all_rules

    rules = all_rules()
    index = {code: i for i, code in enumerate(rules)}
    driver = {
        "name": "jitlint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.summary},
                "help": {
                    "text": f"{rule.summary}\n\nSee {rule_url(code)}",
                    "markdown": catalogue.render_page(rule),
                },
                "helpUri": rule_url(code),
                "defaultConfiguration": {
                    "level": _LEVELS[rule.severity],
                    "enabled": rule.default_enabled,
                },
                "properties": {"tags": [rule.framework], "fixAvailability": rule.fix_availability},
            }
            for code, rule in rules.items()
        ],
    }
    options = options or ReportOptions()
    root = Path(os.path.abspath(options.root or Path.cwd()))
    results = [
        _result(d, index.get(d.code), root, options.unsafe_fixes)
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
    ]
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                # jitlint counts columns in characters, not UTF-16 code units (the default).
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": _directory_uri(root)}},
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _directory_uri(directory: Path) -> str:
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _artifact(path: str, root: Path) -> dict[str, str]:
    """`path` is as shown: relative to the working directory, or absolute."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": "%SRCROOT%"}


def _region(
    line: int, column: int, end_line: int, end_column: int, cell: int | None = None
) -> dict[str, Any]:
    region: dict[str, Any] = {
        "startLine": line,
        "startColumn": column,
        "endLine": end_line,
        "endColumn": end_column,
    }
    if cell is not None:
        # SARIF has no notebook cells: lines count within the cell named here.
        region["properties"] = {"cell": cell}
    return region


def _result(d: Diagnostic, rule_index: int | None, root: Path, unsafe: bool) -> dict[str, Any]:
    advice = help_text(d, unsafe)
    message = d.message if advice is None else f"{d.message}\nhelp: {advice}"
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": _LEVELS[d.severity],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(d.path, root),
                    "region": _region(d.line, d.column, d.end_line, d.end_column, d.cell),
                }
            }
        ],
    }
    if rule_index is not None:
        result["ruleIndex"] = rule_index
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [
            {
                "description": {"text": f"{d.fix.message} ({d.fix.applicability} fix)"},
                "artifactChanges": [
                    {
                        "artifactLocation": _artifact(d.path, root),
                        "replacements": [_replacement(e) for e in d.fix.edits],
                    }
                ],
                "properties": {"applicability": d.fix.applicability},
            }
        ]
    return result


def _replacement(edit: Edit) -> dict[str, Any]:
    return {
        "deletedRegion": _region(edit.line, edit.column, edit.end_line, edit.end_column, edit.cell),
        "insertedContent": {"text": edit.content},
    }
