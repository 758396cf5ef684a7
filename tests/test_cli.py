"""The command line: formats, the JSON contract, selection, exit codes, docs commands."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

HAZARD = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes", "scale"))
    def total(x, axes):
        return x.sum(axis=axes)


    total(x, axes=[0, 1])
    """
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "step.py").write_text(HAZARD)
    (tmp_path / "pkg" / "clean.py").write_text("import jax\n\nf = jax.jit(lambda x: x)\n")
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_full_format_shows_frame_caret_and_help(project):
    status, out, _ = run_cli("--select", "JIT11", "pkg")
    assert status == 1
    assert "pkg/step.py:6:44: JIT112 [*] `static_argnames` names `scale`" in out
    assert "11 | total(x, axes=[0, 1])" in out
    lines = out.splitlines()
    source_line = next(line for line in lines if line.startswith("11 |"))
    caret_line = lines[lines.index(source_line) + 1]
    assert caret_line.endswith("^^^^^^ JIT110")
    assert caret_line.index("^") == source_line.index("[")
    assert "= help: Replace the list with a tuple" in out
    assert out.rstrip().endswith("Found 2 errors.\n[*] 2 fixable with the `--fix` option.")


def test_concise_format(project):
    status, out, _ = run_cli("--format", "concise", "--select", "JIT11", "pkg")
    assert status == 1
    assert out.splitlines() == [
        "pkg/step.py:6:44: JIT112 [*] `static_argnames` names `scale`, but `total` has no "
        "parameter `scale`: jax.jit raises ValueError when it is applied",
        "pkg/step.py:11:15: JIT110 [*] `axes` is a static argument of `total`, but this call "
        "passes a list, which JAX cannot hash (ValueError: Non-hashable static arguments are not "
        "supported)",
        "Found 2 errors.",
        "[*] 2 fixable with the `--fix` option.",
    ]


def test_json_matches_the_contract(project):
    status, out, _ = run_cli("--format", "json", "--select", "JIT001,JIT11", ".")
    assert status == 1
    findings = json.loads(out)
    keys = ["code", "name", "message", "path", "line", "column", "end_line", "end_column",
            "severity", "fix", "url"]  # fmt: skip
    assert all(list(f) == keys for f in findings)
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in findings] == [
        ("broken.py", 1, 7, "JIT001"),
        ("pkg/step.py", 6, 44, "JIT112"),
        ("pkg/step.py", 11, 15, "JIT110"),
    ]
    jit110 = findings[2]
    # 1-based columns, end exclusive: `[0, 1]` spans columns 15..20.
    assert (jit110["end_line"], jit110["end_column"]) == (11, 21)
    assert jit110["severity"] == "error"
    assert jit110["fix"] == {
        "applicability": "safe",
        "message": "Replace the list with a tuple",
        "edits": [
            {"line": 11, "column": 15, "end_line": 11, "end_column": 21, "content": "(0, 1)"}
        ],
    }
    assert jit110["name"] == "unhashable-static-arg"
    assert jit110["url"].endswith("/rules/JIT110.md")


def test_clean_tree_exits_zero(project):
    status, out, _ = run_cli("pkg/clean.py")
    assert (status, out) == (0, "All checks passed!\n")


def test_exit_zero_and_quiet(project):
    status, out, _ = run_cli("--exit-zero", "--quiet", "--format", "concise", "pkg")
    assert status == 0
    assert len(out.splitlines()) == 2 and "Found" not in out and "fixable" not in out


def test_statistics(project):
    status, out, _ = run_cli("--statistics", "--select", "JIT001,JIT11", ".")
    assert status == 1
    assert out.splitlines() == [
        "1\tJIT001\tparse-error",
        "1\tJIT110\t[*] unhashable-static-arg",
        "1\tJIT112\t[*] bad-static-spec",
    ]


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (["--select", "JIT110"], {"JIT110"}),
        (["--select", "JIT1", "--ignore", "JIT112"], {"JIT110"}),
        (["--select", "JIT0,JIT11", "--ignore", "JIT11"], {"JIT001"}),
        (["--select", "JIT112", "--ignore", "JIT1"], {"JIT112"}),
        (["--select", "ALL", "--ignore", "JIT0"], {"JIT110", "JIT112"}),
        (["--select", "JIT001", "--extend-select", "JIT110"], {"JIT001", "JIT110"}),
    ],
)
def test_selection(project, args, codes):
    _, out, _ = run_cli(*args, "--format", "json", ".")
    # Only the three rules this project can trigger are compared; others may be added.
    seen = {f["code"] for f in json.loads(out)} & {"JIT001", "JIT110", "JIT112"}
    assert seen == codes


def test_unknown_selector_is_a_usage_error(project):
    status, _, err = run_cli("--select", "JIT999", ".")
    assert status == 2
    assert "unknown rule selector 'JIT999'" in err


def test_missing_path_is_an_error_but_the_rest_runs(project):
    status, out, err = run_cli("--format", "concise", "nope.py", "pkg/step.py")
    assert status == 2
    assert "nope.py: no such file or directory" in err
    assert "JIT110" in out


def test_stdin_with_filename(project):
    status, out, _ = run_cli(
        "-", "--stdin-filename", "pkg/from_editor.py", "--format", "concise",
        stdin=HAZARD.encode(),
    )  # fmt: skip
    assert status == 1
    assert out.splitlines()[0].startswith("pkg/from_editor.py:6:44: JIT112")


def test_explain_json(project):
    status, out, _ = run_cli("--explain", "jit110", "--format", "json")
    assert status == 0
    data = json.loads(out)
    assert data["code"] == "JIT110" and data["name"] == "unhashable-static-arg"
    assert "## Why is this bad" in data["explanation"]


def test_explain_unknown_code(project):
    status, _, err = run_cli("--explain", "JIT999")
    assert status == 2 and "unknown rule code" in err


def test_list_rules(project):
    status, out, _ = run_cli("--list-rules")
    assert status == 0
    assert any(line.startswith("JIT110") for line in out.splitlines())
    status, out, _ = run_cli("--list-rules", "--format", "json")
    assert {"JIT001", "JIT110", "JIT112"} <= {r["code"] for r in json.loads(out)}


def test_version_and_module_entry_point(project):
    done = subprocess.run(
        [sys.executable, "-m", "jitlint", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.startswith("jitlint ")


def test_bad_format_is_a_usage_error(project):
    status, _, _ = run_cli("--format", "xml", ".")
    assert status == 2


def test_jobs_give_the_same_ordered_output(project):
    for index in range(20):
        Path(project, "pkg", f"copy{index}.py").write_text(HAZARD)
    _, one, _ = run_cli("--format", "json", "--select", "JIT001,JIT11", "-j", "1", ".")
    _, two, _ = run_cli("--format", "json", "--select", "JIT001,JIT11", "-j", "2", ".")
    assert one == two
    assert len(json.loads(one)) == 43
