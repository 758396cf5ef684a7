"""The failures a new user met (#18): each fixed, each pinned here."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

REPO = Path(__file__).resolve().parents[1]

TRACED_IF = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x
    """
)
SAFE_FIX = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _readme_tables() -> list[str]:
    """Every ```toml block of the README that configures jitlint."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    return [block for block in blocks if "[tool.jitlint" in block]


def test_the_readme_configuration_examples_are_accepted_as_pasted(workdir):
    tables = _readme_tables()
    assert len(tables) >= 3, "the README shows no [tool.jitlint] example"
    (workdir / "tests").mkdir()
    (workdir / "tests" / "jit_examples.py").write_text("EXAMPLES = {}\n")
    (workdir / "pyproject.toml").write_text(tables[0])
    for table in tables:
        # A block may name its file in a first comment (`# services/api/pyproject.toml`).
        first = table.splitlines()[0]
        where = first[2:].strip() if first.startswith("# ") and "toml" in first else None
        config = workdir / (where or "pyproject.toml")
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(table)
        (config.parent / "a.py").write_text(TRACED_IF)
        status, _, err = run_cli("--format", "json", str(config.parent / "a.py"))
        assert status in (0, 1), f"{err}\n---\n{table}"


def test_the_hooks_pass_force_exclude():
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hooks and all("--force-exclude" in hook["entry"].split() for hook in hooks)


def test_force_exclude_skips_excluded_files_named_as_pre_commit_names_them(workdir):
    (workdir / "pyproject.toml").write_text('[tool.jitlint]\nextend-exclude = ["vendor"]\n')
    (workdir / "vendor").mkdir()
    (workdir / "vendor" / "x.py").write_text(TRACED_IF)
    (workdir / "mine.py").write_text(TRACED_IF)
    # Without the flag a named file is linted (ruff's rule); pre-commit names every file.
    assert run_cli("--select", "JIT101", "vendor/x.py")[0] == 1
    status, out, err = run_cli("--force-exclude", "--select", "JIT101", "vendor/x.py")
    assert (status, out) == (0, "")
    assert "no Python files found" in err
    status, out, _ = run_cli(
        "--force-exclude", "--format", "concise", "--select", "JIT101", "vendor/x.py", "mine.py"
    )
    assert status == 1 and "mine.py:6:8: JIT101" in out and "vendor" not in out
    # The config key does the same; --no-force-exclude overrides it.
    (workdir / "pyproject.toml").write_text(
        '[tool.jitlint]\nextend-exclude = ["vendor"]\nforce-exclude = true\n'
    )
    assert run_cli("vendor/x.py")[0] == 0
    assert run_cli("--no-force-exclude", "vendor/x.py")[0] == 1


def test_a_missing_path_does_not_pass_all_checks(workdir):
    status, out, err = run_cli("nonexist.py")
    assert status == 2
    assert "nonexist.py: no such file or directory" in err
    assert "All checks passed" not in out + err


def test_check_is_a_subcommand_as_in_ruff(workdir):
    (workdir / "pkg").mkdir()
    (workdir / "pkg" / "a.py").write_text(TRACED_IF)
    status, out, err = run_cli("check", "--format", "concise", "pkg")
    assert status == 1, err
    assert out.startswith("pkg/a.py:6:8: JIT101")
    assert err == ""
    # A directory called `check` is still reachable as a path.
    (workdir / "check").mkdir()
    (workdir / "check" / "b.py").write_text(TRACED_IF)
    assert "check/b.py" in run_cli("--format", "concise", "./check")[1]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("notes.txt", TRACED_IF),
        # (A named notebook is linted: tests/test_notebooks.py.)
        ("setup.cfg", "[metadata]\nname = x\n"),
        ("data.json", "[]\n"),
    ],
)
def test_a_file_that_is_not_python_is_skipped_not_passed(workdir, name, text):
    (workdir / name).write_text(text)
    status, out, err = run_cli(name)
    assert status == 0
    assert out == ""
    assert f"{name}: not a Python file; skipped" in err
    assert "no Python files found" in err


def test_a_script_without_a_suffix_is_python_when_its_shebang_says_so(workdir):
    (workdir / "tool").write_text("#!/usr/bin/env python3\n" + TRACED_IF)
    (workdir / "run").write_text("#!/bin/sh\necho hi\n")
    status, out, err = run_cli("--format", "concise", "tool", "run")
    assert status == 1
    assert out.startswith("tool:7:8: JIT101")
    assert "run: not a Python file; skipped" in err


def test_an_empty_directory_warns_and_exits_zero(workdir):
    (workdir / "empty").mkdir()
    status, out, err = run_cli("empty")
    assert (status, out) == (0, "")
    assert err == "jitlint: warning: no Python files found\n"
    # Machine formats still print a valid, empty document.
    status, out, _ = run_cli("--format", "json", "empty")
    assert (status, json.loads(out)) == (0, [])


UNSAFE_ONLY = (
    "import jax\nf = jax.jit(lambda x, a: x, static_argnums=1)\n"
    "def run(x):\n    axes = [0]\n    return f(x, axes)\n"
)


def test_statistics_mark_only_what_fix_would_fix(workdir):
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    (workdir / "a.py").write_text(SAFE_FIX)
    _, out, _ = run_cli("--statistics", "a.py", "b.py")
    assert out.splitlines() == [
        "1\tJIT110\tunhashable-static-arg",
        "1\tJIT112\t[*] bad-static-spec",
    ]
    _, out, _ = run_cli("--statistics", "--unsafe-fixes", "b.py")
    assert out == "1\tJIT110\t[*] unhashable-static-arg\n"


def test_statistics_as_json(workdir):
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    (workdir / "a.py").write_text(SAFE_FIX)
    status, out, _ = run_cli("--statistics", "--format", "json", "a.py", "b.py")
    assert status == 1
    assert json.loads(out) == [
        {"code": "JIT110", "name": "unhashable-static-arg", "count": 1, "fixable": False},
        {"code": "JIT112", "name": "bad-static-spec", "count": 1, "fixable": True},
    ]
    status, out, err = run_cli("--statistics", "--format", "sarif", "a.py")
    assert status == 2 and "--statistics prints text or json" in err


def test_diff_of_an_absolute_path_names_it_as_it_is(workdir, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "a.py"
    elsewhere.write_text(SAFE_FIX)
    status, out, _ = run_cli("--diff", str(elsewhere))
    assert status == 1
    assert f"--- {elsewhere}\n+++ {elsewhere}\n" in out
    assert "a//" not in out
    (workdir / "rel.py").write_text(SAFE_FIX)
    assert "--- a/rel.py\n+++ b/rel.py\n" in run_cli("--diff", "rel.py")[1]


def _help_lines(fmt: str, *extra: str) -> list[str]:
    _, out, _ = run_cli("--format", fmt, *extra, "a.py", "b.py")
    if fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        return [r["message"]["text"].split("\nhelp: ", 1)[1] for r in results]
    if fmt == "github":
        return [line.split("%0Ahelp: ", 1)[1] for line in out.splitlines()]
    return [line.split("= help: ", 1)[1] for line in out.splitlines() if "= help: " in line]


@pytest.mark.parametrize("extra", [(), ("--unsafe-fixes",)])
def test_help_is_the_same_text_in_every_format(workdir, extra):
    (workdir / "a.py").write_text(TRACED_IF)
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    full = _help_lines("full", *extra)
    assert len(full) == 2
    assert ("(unsafe: needs --unsafe-fixes)" in full[0]) == (not extra)
    assert _help_lines("github", *extra) == full
    assert _help_lines("sarif", *extra) == full


# `-j 0` is one worker per core, the default (tests/test_reliability_round2.py).
@pytest.mark.parametrize("jobs", ["-3", "two", "257"])
def test_jobs_must_be_a_number_in_range(workdir, jobs):
    (workdir / "a.py").write_text(SAFE_FIX)
    status, out, err = run_cli("-j", jobs, "a.py")
    assert status == 2 and out == ""
    assert "-j" in err
    assert run_cli("-j", "1", "a.py")[0] == 1


def test_force_without_verify_is_refused(workdir):
    (workdir / "a.py").write_text(SAFE_FIX)
    status, _, err = run_cli("--fix", "--force", "a.py")
    assert status == 2
    assert "--force needs --verify" in err
    assert (workdir / "a.py").read_text() == SAFE_FIX


@pytest.mark.parametrize(
    ("body", "suggestion"),
    [
        ('[tool.jitlint]\nextend_select = ["JIT1"]\n', "did you mean `extend-select`?"),
        ('[tool.jitlint]\nexlude = ["x"]\n', "did you mean `exclude`?"),
        ("[tool.jitlint]\nunsafe-fix = true\n", "did you mean `unsafe-fixes`?"),
        ('[tool.jitlint.unhashable-static-args]\nunhashable-calls = ["m.f"]\n',
         "did you mean `unhashable-static-arg`?"),
        ('[tool.jitlint.unhashable-static-arg]\nunhashable-call = ["m.f"]\n',
         "did you mean `unhashable-calls`?"),
        ("[tool.jitlint.verify]\ntimout = 3\n", "did you mean `timeout`?"),
    ],
)  # fmt: skip
def test_unknown_config_keys_get_a_suggestion(workdir, body, suggestion):
    (workdir / "pyproject.toml").write_text(body)
    (workdir / "a.py").write_text(SAFE_FIX)
    status, _, err = run_cli("a.py")
    assert status == 2
    assert suggestion in err


def test_a_key_like_nothing_known_gets_no_suggestion(workdir):
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\ncolour = true\n")
    (workdir / "a.py").write_text(SAFE_FIX)
    status, _, err = run_cli("a.py")
    assert status == 2 and "unknown key" in err and "did you mean" not in err


def test_sarif_uris_are_relative_to_the_project_root_from_a_subdirectory(workdir, monkeypatch):
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\n")
    (workdir / "src" / "pkg").mkdir(parents=True)
    (workdir / "src" / "pkg" / "a.py").write_text(SAFE_FIX)
    monkeypatch.chdir(workdir / "src")
    _, out, _ = run_cli("--format", "sarif", ".")
    run = json.loads(out)["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == workdir.resolve().as_uri() + "/"
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "src/pkg/a.py", "uriBaseId": "%SRCROOT%"}
    fix_location = run["results"][0]["fixes"][0]["artifactChanges"][0]["artifactLocation"]
    assert fix_location == location
