"""The output formats of issue #32: json-lines, junit, gitlab, pylint, rdjson, azure, grouped.

Each is checked through the command line against what its consumer reads: JUnit XML parses and
has testsuites/testsuite/testcase/failure; the GitLab Code Quality report and reviewdog's
rdjson document validate against the required part of their schemas (written here as dicts:
the consumers' own schemas are not shipped with jitlint); the line formats match their
consumers' patterns, with their escapes.
"""

from __future__ import annotations

import json
import re
import textwrap
from xml.etree import ElementTree

import pytest
from helpers import run_cli

from jitlint.diagnostics import Diagnostic, Edit, Fix
from jitlint.reporting import FORMATS, TEXT_FORMATS

jsonschema = pytest.importorskip("jsonschema")

HAZARD = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes", "scale"))
    def total(x, axes):
        return x.sum(axis=axes)


    {prefix}total(x, axes=[0, 1])
    """
)
SELECT = ("--no-cache", "--select", "JIT001,JIT11")


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "step.py").write_text(HAZARD.format(prefix=""))
    # Two bytes per `é`: rdjson's columns count bytes, the others characters.
    (tmp_path / "pkg" / "accents.py").write_text(HAZARD.format(prefix="é = "), encoding="utf-8")
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    monkeypatch.delenv("JITLINT_OUTPUT_FORMAT", raising=False)
    return tmp_path


def _findings() -> list[dict]:
    status, out, err = run_cli("--output-format", "json", *SELECT, ".")
    assert status == 1, err
    return json.loads(out)


def _report(fmt: str, *paths: str) -> str:
    status, out, err = run_cli("--output-format", fmt, *SELECT, *(paths or (".",)))
    assert status == 1, err
    assert err == ""  # a machine format owns stdout; nothing else is said
    return out


def test_every_format_the_cli_offers_has_a_formatter():
    from jitlint.frontends.cli import FORMAT_CHOICES

    assert sorted(FORMAT_CHOICES) == sorted(FORMATS)
    assert set(TEXT_FORMATS) == {"full", "concise", "grouped"}


# ---- json-lines -------------------------------------------------------------------------------
def test_json_lines_is_the_json_array_one_object_a_line(project):
    out = _report("json-lines")
    lines = out.splitlines()
    assert len(lines) == 5
    assert [json.loads(line) for line in lines] == _findings()


def test_json_lines_of_a_clean_run_is_empty(project):
    status, out, _ = run_cli("--output-format", "json-lines", "--no-cache", "pkg/__nothing__.py")
    assert status == 2 and out == ""
    (project / "ok.py").write_text("x = 1\n")
    status, out, _ = run_cli("--output-format", "json-lines", "--no-cache", "ok.py")
    assert (status, out) == (0, "")


# ---- junit --------------------------------------------------------------------------------------
def test_junit_is_xml_with_a_suite_per_file_and_a_failed_case_per_finding(project):
    root = ElementTree.fromstring(_report("junit"))
    findings = _findings()
    assert root.tag == "testsuites"
    assert root.get("tests") == root.get("failures") == str(len(findings))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == sorted({f["path"] for f in findings})
    cases = [(s.get("name"), c) for s in suites for c in s.findall("testcase")]
    assert len(cases) == len(findings)
    for suite in suites:
        assert suite.get("tests") == suite.get("failures") == str(len(suite.findall("testcase")))
    for (suite_name, case), finding in zip(cases, findings, strict=True):
        assert suite_name == case.get("classname") == finding["path"]
        assert case.get("name") == f"org.jitlint.{finding['code']}"
        assert (case.get("line"), case.get("column")) == (
            str(finding["line"]),
            str(finding["column"]),
        )
        [failure] = case.findall("failure")
        assert failure.get("message") == finding["message"]
        assert (
            failure.text
            == f"line {finding['line']}, col {finding['column']}, " + (finding["message"])
        )


def test_junit_of_a_clean_run_is_one_passing_case(project):
    (project / "ok.py").write_text("x = 1\n")
    status, out, _ = run_cli("--output-format", "junit", "--no-cache", "ok.py")
    assert status == 0
    root = ElementTree.fromstring(out)
    assert root.get("failures") == "0"
    [case] = root.iter("testcase")
    assert case.get("name") == "No errors found" and case.find("failure") is None


# ---- gitlab -------------------------------------------------------------------------------------
# The part of GitLab's Code Quality report format GitLab requires (docs: "Code Quality report
# format"), with the severities it accepts.
GITLAB_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {
                            "begin": {"type": "integer", "minimum": 1},
                            "end": {"type": "integer", "minimum": 1},
                        },
                    },
                },
            },
        },
    },
}


def test_gitlab_report_has_the_required_keys_and_unique_fingerprints(project):
    issues = json.loads(_report("gitlab"))
    jsonschema.validate(issues, GITLAB_SCHEMA)
    findings = _findings()
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in
            issues] == [(f["code"], f["path"], f["line"]) for f in findings]  # fmt: skip
    assert [i["description"] for i in issues] == [f"{f['code']}: {f['message']}" for f in findings]
    assert {i["severity"] for i in issues} <= {"major", "minor"}
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_fingerprints_survive_moved_lines_and_paths_follow_ci_project_dir(
    project, monkeypatch
):
    before = json.loads(_report("gitlab", "pkg/step.py"))
    step = project / "pkg" / "step.py"
    step.write_text("# a new first line\n" + step.read_text())
    after = json.loads(_report("gitlab", "pkg/step.py"))
    assert [i["location"]["lines"]["begin"] for i in after] == [
        i["location"]["lines"]["begin"] + 1 for i in before
    ]
    assert [i["fingerprint"] for i in after] == [i["fingerprint"] for i in before]
    monkeypatch.setenv("CI_PROJECT_DIR", str(project / "pkg"))
    paths = {i["location"]["path"] for i in json.loads(_report("gitlab", "pkg/step.py"))}
    assert paths == {"step.py"}


def test_gitlab_gives_repeated_findings_distinct_fingerprints():
    same = Diagnostic("JIT110", "unhashable-static-arg", "m", "a.py", 3, 1, 3, 2)
    moved = Diagnostic("JIT110", "unhashable-static-arg", "m", "a.py", 9, 1, 9, 2)
    issues = json.loads(FORMATS["gitlab"]([same, moved], {}, None))
    assert issues[0]["fingerprint"] != issues[1]["fingerprint"]


# ---- pylint -------------------------------------------------------------------------------------
def test_pylint_lines_are_path_line_code_message(project):
    lines = _report("pylint").splitlines()
    findings = _findings()
    assert lines == [f"{f['path']}:{f['line']}: [{f['code']}] {f['message']}" for f in findings]
    for line in lines:
        assert re.fullmatch(r"[^:]+:\d+: \[JIT\d{3}\] .+", line), line


# ---- rdjson -------------------------------------------------------------------------------------
# The part of reviewdog's DiagnosticResult schema (proto/rdf/jsonschema) a consumer reads.
_POSITION = {
    "type": "object",
    "required": ["line", "column"],
    "properties": {"line": {"type": "integer"}, "column": {"type": "integer"}},
}
_RANGE = {
    "type": "object",
    "required": ["start"],
    "properties": {"start": _POSITION, "end": _POSITION},
}
RDJSON_SCHEMA = {
    "type": "object",
    "required": ["diagnostics"],
    "properties": {
        "source": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "url": {"type": "string"}},
        },
        "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
        "diagnostics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message", "location"],
                "additionalProperties": False,
                "properties": {
                    "message": {"type": "string"},
                    "location": {
                        "type": "object",
                        "required": ["path"],
                        "properties": {"path": {"type": "string"}, "range": _RANGE},
                    },
                    "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
                    "source": {"type": "object"},
                    "code": {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
                    },
                    "suggestions": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["range", "text"],
                            "properties": {"range": _RANGE, "text": {"type": "string"}},
                        },
                    },
                    "original_output": {"type": "string"},
                },
            },
        },
    },
}


def test_rdjson_validates_and_counts_columns_in_utf8_bytes(project):
    document = json.loads(_report("rdjson"))
    jsonschema.validate(document, RDJSON_SCHEMA)
    assert document["source"]["name"] == "jitlint"
    results = document["diagnostics"]
    findings = _findings()
    assert [(r["code"]["value"], r["location"]["path"]) for r in results] == [
        (f["code"], f["path"]) for f in findings
    ]
    for result, finding in zip(results, findings, strict=True):
        start = result["location"]["range"]["start"]
        assert start["line"] == finding["line"]
        assert result["severity"] == finding["severity"].upper()
        assert result["code"]["url"] == finding["url"]
        assert result["message"].startswith(finding["message"])
        # Lines with `é = ` before the span: one byte more than characters.
        shift = 1 if finding["path"] == "pkg/accents.py" and finding["line"] == 11 else 0
        assert start["column"] == finding["column"] + shift
        if finding["fix"] is not None:
            [edit] = finding["fix"]["edits"]
            [suggestion] = result["suggestions"]
            assert suggestion["text"] == edit["content"]
            assert suggestion["range"]["start"]["column"] == edit["column"] + shift
        else:
            assert "suggestions" not in result


# ---- azure --------------------------------------------------------------------------------------
_AZURE = re.compile(
    r"##vso\[task\.logissue type=(error|warning);sourcepath=([^;\]]+);linenumber=(\d+);"
    r"columnnumber=(\d+);code=(JIT\d{3});\](.*)"
)


def test_azure_logging_commands(project):
    lines = _report("azure").splitlines()
    findings = _findings()
    assert len(lines) == len(findings)
    for line, finding in zip(lines, findings, strict=True):
        match = _AZURE.fullmatch(line)
        assert match, line
        assert match.groups() == (
            finding["severity"],
            finding["path"],
            str(finding["line"]),
            str(finding["column"]),
            finding["code"],
            finding["message"].replace("%", "%AZP25"),
        )


def test_azure_escapes_properties_and_messages():
    d = Diagnostic("JIT110", "n", "50% of a;b]\nnext", "dir;x]/a.py", 2, 3, 2, 4, "warning")
    [line] = FORMATS["azure"]([d], {}, None).splitlines()
    assert line == (
        "##vso[task.logissue type=warning;sourcepath=dir%3Bx%5D/a.py;linenumber=2;"
        "columnnumber=3;code=JIT110;]50%AZP25 of a;b]%0Anext"
    )


# ---- grouped ------------------------------------------------------------------------------------
def test_grouped_lists_findings_under_each_file_with_a_summary(project):
    status, out, _ = run_cli("--output-format", "grouped", *SELECT, ".")
    assert status == 1
    findings = _findings()
    by_path: dict[str, list[dict]] = {}
    for f in findings:
        by_path.setdefault(f["path"], []).append(f)
    expected = []
    for path, found in by_path.items():
        row = max(len(str(f["line"])) for f in found)
        column = max(len(str(f["column"])) for f in found)
        expected.append(f"{path}:")
        for f in found:
            marker = "[*] " if f["fix"] and f["fix"]["applicability"] == "safe" else ""
            where = f"{f['line']:>{row}}:{f['column']:<{column}}"
            expected.append(f"  {where} {f['code']} {marker}{f['message']}")
        expected.append("")
    body, summary = out.split("Found ", 1)
    assert body.splitlines() == expected
    assert summary.startswith(f"{len(findings)} errors.")


def test_grouped_aligns_lines_and_columns_and_colours_on_request():
    found = [
        Diagnostic("JIT101", "traced-bool", "one", "a.py", 9, 12, 9, 13),
        Diagnostic("JIT101", "traced-bool", "two", "a.py", 10, 1, 10, 2),
        Diagnostic("JIT101", "traced-bool", "cell", "n.ipynb", 2, 5, 2, 6, cell=3),
    ]
    assert FORMATS["grouped"](found).splitlines() == [
        "a.py:",
        "   9:12 JIT101 one",
        "  10:1  JIT101 two",
        "",
        "n.ipynb:",
        "  cell 3:2:5 JIT101 cell",
        "",
    ]
    from jitlint.reporting.options import ReportOptions

    coloured = FORMATS["grouped"](found, {}, ReportOptions(colour=True))
    assert "\x1b[1ma.py\x1b[0m:" in coloured and "\x1b[1;31mJIT101\x1b[0m" in coloured


# ---- the formats in the other modes -------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["gitlab", "junit", "rdjson", "json-lines", "pylint", "azure"])
def test_a_machine_format_owns_stdout_with_fix(project, fmt):
    status, out, err = run_cli("--fix", "--output-format", fmt, *SELECT, ".")
    assert status == 1  # broken.py's JIT001 remains
    assert "Fixed 4 findings" in err and "Fixed" not in out
    assert "broken.py" in out
    if fmt in ("gitlab", "rdjson"):
        json.loads(out)
    elif fmt == "junit":
        ElementTree.fromstring(out)


def test_statistics_accept_grouped_and_refuse_the_machine_formats(project):
    status, out, _ = run_cli("--statistics", "--output-format", "grouped", *SELECT, ".")
    assert status == 1 and "JIT110" in out
    status, _, err = run_cli("--statistics", "--output-format", "junit", *SELECT, ".")
    assert status == 2 and "--statistics" in err


def test_notebook_cells_are_named_in_the_line_formats():
    d = Diagnostic("JIT101", "traced-bool", "msg", "nb.ipynb", 2, 5, 2, 6, cell=4)
    assert FORMATS["pylint"]([d], {}, None) == "nb.ipynb:2: [JIT101] cell 4, line 2: msg\n"
    issue = json.loads(FORMATS["gitlab"]([d], {}, None))[0]
    assert issue["description"] == "JIT101: cell 4, line 2: msg"
    unsafe = Diagnostic(
        "JIT110", "n", "m", "nb.ipynb", 2, 5, 2, 6,
        fix=Fix("safe", "f", (Edit(2, 5, 2, 6, "x", cell=4),)), cell=4,
    )  # fmt: skip
    # An edit's lines count within its cell: no suggestion reviewdog would misplace.
    [result] = json.loads(FORMATS["rdjson"]([unsafe], {}, None))["diagnostics"]
    assert "suggestions" not in result and result["message"].startswith("cell 4, line 2:")
