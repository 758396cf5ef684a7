"""Issue #32's commands and flags, as ruff spells them: `jitlint rule`, `jitlint clean`,
`--output-format` (and JITLINT_OUTPUT_FORMAT), `--show-files`, `--fix-only`,
`--exit-non-zero-on-fix`, `--ignore-noqa`, `--isolated`, `--cache-dir` (and
JITLINT_CACHE_DIR) and `-w/--watch`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import run_cli

from jitlint.frontends import watch
from jitlint.rules import all_rules

REPO = Path(__file__).resolve().parents[1]
HAZARD = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes", "scale"))
    def total(x, axes):
        return x.sum(axis=axes)


    total(x, axes=[0, 1]){comment}
    """
)
SELECT = ("--no-cache", "--select", "JIT001,JIT11")


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "step.py").write_text(HAZARD.format(comment=""))
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    monkeypatch.chdir(tmp_path)
    for name in ("JITLINT_OUTPUT_FORMAT", "JITLINT_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_help_lists_every_new_flag_and_command():
    status, out, _ = run_cli("--help")
    assert status == 0
    for flag in (
        "--output-format", "--format", "--show-files", "--fix-only", "--exit-non-zero-on-fix",
        "--ignore-noqa", "--isolated", "--cache-dir", "--watch", "-w", "--explain",
        "jitlint rule", "jitlint clean", "JITLINT_OUTPUT_FORMAT", "JITLINT_CACHE_DIR",
    ):  # fmt: skip
        assert flag in out, flag


# ---- --output-format ----------------------------------------------------------------------------
def test_output_format_and_format_are_one_option(project):
    one = run_cli("--output-format", "concise", *SELECT, ".")
    two = run_cli("--format", "concise", *SELECT, ".")
    assert one == two and one[0] == 1
    assert one[1].startswith("broken.py:1:7: JIT001 ")


def test_the_environment_names_the_format_and_the_option_wins(project, monkeypatch):
    monkeypatch.setenv("JITLINT_OUTPUT_FORMAT", "json")
    status, out, _ = run_cli(*SELECT, ".")
    assert status == 1 and [f["code"] for f in json.loads(out)] == ["JIT001", "JIT112", "JIT110"]
    status, out, _ = run_cli("--output-format", "concise", *SELECT, ".")
    assert out.startswith("broken.py:1:7: JIT001 ")
    monkeypatch.setenv("JITLINT_OUTPUT_FORMAT", "xml")
    status, out, err = run_cli(*SELECT, ".")
    assert status == 2 and out == ""
    assert "JITLINT_OUTPUT_FORMAT='xml' is not a format" in err


# ---- jitlint rule -------------------------------------------------------------------------------
def test_rule_prints_what_explain_prints(project):
    assert run_cli("rule", "jit110") == run_cli("--explain", "JIT110")
    status, out, _ = run_cli("rule", "JIT110", "--output-format", "json")
    assert status == 0 and (status, out) == run_cli("--explain", "JIT110", "--format", "json")[:2]
    assert json.loads(out)["code"] == "JIT110"


def test_rule_all_prints_every_rule(project, monkeypatch):
    status, out, _ = run_cli("rule", "--all", "--output-format", "json")
    entries = json.loads(out)
    assert status == 0
    assert [e["code"] for e in entries] == list(all_rules())
    assert all(e["explanation"].startswith(f"# {e['code']} ") for e in entries)
    status, text, _ = run_cli("rule", "--all")
    assert status == 0
    assert [line.split()[1] for line in text.splitlines() if line.startswith("# JIT")] == list(
        all_rules()
    )
    monkeypatch.setenv("JITLINT_OUTPUT_FORMAT", "json")
    assert json.loads(run_cli("rule", "--all")[1]) == entries


def test_rule_usage_errors(project):
    assert run_cli("rule", "JIT999")[0] == 2
    assert run_cli("rule")[0] == 2
    assert run_cli("rule", "JIT110", "--all")[0] == 2


# ---- --show-files -------------------------------------------------------------------------------
def test_show_files_lists_the_files_a_run_would_lint(project):
    (project / "pkg" / "skip.py").write_text("x = 1\n")
    (project / "notes.txt").write_text("not python\n")
    status, out, err = run_cli("--show-files", "--extend-exclude", "skip.py", ".")
    assert status == 0
    assert out.splitlines() == [
        str(project / "broken.py"),
        str(project / "pkg" / "step.py"),
    ]
    assert "JIT" not in out + err  # nothing was linted
    assert run_cli("--show-files", "--fix", ".")[0] == 2


# ---- --fix-only and --exit-non-zero-on-fix ------------------------------------------------------
def test_fix_only_fixes_reports_nothing_left_and_exits_0(project):
    status, out, err = run_cli("--fix-only", *SELECT, ".")
    # broken.py's JIT001 remains, unreported; the summary is where --fix puts it
    assert (status, out, err) == (0, "Fixed 2 findings.\n", "")
    fixed = (project / "pkg" / "step.py").read_text()
    assert 'static_argnames=("axes",)' in fixed and "axes=(0, 1)" in fixed
    status, out, _ = run_cli("--fix", *SELECT, ".")
    assert status == 1 and "broken.py:1:7: JIT001" in out  # --fix does report it


def test_fix_only_on_stdin_prints_only_the_fixed_text(project):
    source = HAZARD.format(comment="").encode()
    status, out, err = run_cli("--fix-only", *SELECT, "-", stdin=source)
    assert status == 0
    assert out == HAZARD.format(comment="").replace('"axes", "scale"', '"axes",').replace(
        "[0, 1]", "(0, 1)"
    )
    assert "JIT1" not in err


def test_exit_non_zero_on_fix(project):
    assert run_cli("--fix-only", "--exit-non-zero-on-fix", *SELECT, ".")[0] == 1
    # Nothing left to fix: 0 with --fix-only, 1 with --fix (a finding remains).
    assert run_cli("--fix-only", "--exit-non-zero-on-fix", *SELECT, ".")[0] == 0
    assert run_cli("--fix", "--exit-non-zero-on-fix", *SELECT, "pkg")[0] == 0
    (project / "pkg" / "step.py").write_text(HAZARD.format(comment=""))
    assert run_cli("--fix", "--exit-non-zero-on-fix", *SELECT, "pkg")[0] == 1
    (project / "pkg" / "step.py").write_text(HAZARD.format(comment=""))
    assert run_cli("--fix", "--exit-non-zero-on-fix", "--exit-zero", *SELECT, "pkg")[0] == 0
    status, _, err = run_cli("--exit-non-zero-on-fix", *SELECT, ".")
    assert status == 2 and "needs --fix" in err


# ---- --ignore-noqa ------------------------------------------------------------------------------
def test_ignore_noqa_reports_suppressed_findings_and_the_cache_keeps_them_apart(project):
    (project / "pkg" / "step.py").write_text(HAZARD.format(comment="  # noqa: JIT110"))
    args = ("--output-format", "concise", "--select", "JIT11", "pkg")

    def codes(*extra: str) -> list[str]:
        out = run_cli(*extra, *args)[1]
        return [line.split()[1] for line in out.splitlines() if line.startswith("pkg/")]

    assert codes() == ["JIT112"]
    assert codes("--ignore-noqa") == ["JIT112", "JIT110"]
    assert codes() == ["JIT112"]  # cached results with and without do not mix
    assert (project / ".jitlint_cache").is_dir()


# ---- --isolated ---------------------------------------------------------------------------------
def test_isolated_reads_no_config(project):
    (project / "pyproject.toml").write_text('[tool.jitlint]\nselect = ["JIT001"]\n')
    status, out, _ = run_cli("--output-format", "concise", "--no-cache", "pkg")
    assert status == 0 and "JIT110" not in out
    status, out, _ = run_cli("--isolated", "--output-format", "concise", "--no-cache", "pkg")
    assert status == 1 and "JIT110" in out
    status, _, err = run_cli("--isolated", "--config", "pyproject.toml", "--no-cache", "pkg")
    assert status == 2 and "--isolated" in err


# ---- --cache-dir and jitlint clean --------------------------------------------------------------
def test_cache_dir_option_and_variable(project, monkeypatch):
    status, _, _ = run_cli("--cache-dir", "elsewhere", "-q", "pkg")
    assert status == 1
    assert not (project / ".jitlint_cache").exists()
    assert (project / "elsewhere" / ".gitignore").is_file()
    assert list((project / "elsewhere").glob("*/*.json"))
    monkeypatch.setenv("JITLINT_CACHE_DIR", str(project / "from_env"))
    run_cli("-q", "pkg")
    assert list((project / "from_env").glob("*/*.json"))
    assert not (project / ".jitlint_cache").exists()


def test_clean_removes_the_caches_it_made_and_nothing_else(project, monkeypatch):
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text("[tool.jitlint]\n")
    (project / "sub" / "mod.py").write_text(HAZARD.format(comment=""))
    run_cli("-q", "pkg")
    monkeypatch.chdir(project / "sub")  # a run's cache is in its own project's root
    run_cli("-q", ".")
    monkeypatch.chdir(project)
    run_cli("-q", "--cache-dir", str(project / "shared"), "pkg")
    decoy = project / "keep" / ".jitlint_cache"
    decoy.mkdir(parents=True)
    (decoy / "precious.txt").write_text("mine\n")
    made = [project / ".jitlint_cache", project / "sub" / ".jitlint_cache"]
    assert all(folder.is_dir() for folder in made)
    status, out, err = run_cli("clean", "--cache-dir", "shared")
    assert status == 0 and out == ""
    assert not any(folder.exists() for folder in made)
    assert not (project / "shared").exists()
    assert (decoy / "precious.txt").read_text() == "mine\n"
    assert "Removing cache at: .jitlint_cache" in err
    assert "keep/.jitlint_cache: not a jitlint cache" in err


# ---- -w/--watch ---------------------------------------------------------------------------------
class _Screen(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize("terminal", [True, False])
def test_watch_runs_again_on_a_change_and_clears_only_a_terminal(tmp_path, terminal):
    module = tmp_path / "m.py"
    module.write_text("x = 1\n")
    screen, log = _Screen(terminal), io.StringIO()
    runs: list[int] = []

    def run_once() -> int:
        runs.append(len(runs))
        screen.write(f"run {len(runs)}\n")
        if len(runs) == 1:  # an edit while the first run works is seen after it
            module.write_text("x = 22\n")
        return len(runs)

    status = watch.watch(
        run_once, lambda: [str(module)], screen=screen, log=log, poll_seconds=0.01, max_runs=2
    )
    assert status == 2 and runs == [0, 1]
    cleared = "\x1b[2J\x1b[3J\x1b[H"
    assert screen.getvalue() == "run 1\n" + (cleared if terminal else "") + "run 2\n"
    notes = [line.split("] ", 1)[1] for line in log.getvalue().splitlines()]
    assert notes == ["Starting linter in watch mode...", "File change detected..."]


def test_stamps_see_edits_new_files_and_config_files_but_not_the_cache(tmp_path):
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "m.py"
    module.write_text("x = 1\n")

    def now() -> watch.Stamps:
        return watch.stamps([str(module)], tmp_path)

    first = now()
    assert now() == first
    (tmp_path / ".jitlint_cache").mkdir()  # what the first run makes
    assert now() == first
    changes = [
        lambda: (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\n"),
        lambda: (tmp_path / "pkg" / "jitlint.toml").write_text(""),
        lambda: module.write_text("x = 22\n"),
        lambda: (tmp_path / "pkg" / "new.py").write_text(""),
        lambda: (tmp_path / "pkg" / "new.py").rename(tmp_path / "pkg" / "renamed.py"),
        lambda: (tmp_path / "top.py").write_text(""),
    ]
    for change in changes:
        before = now()
        change()
        assert now() != before


def test_watch_from_the_command_line_lints_again_after_an_edit(project):
    """A real `jitlint --watch`, killed once it has run twice (bounded by a deadline)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "jitlint", "-w", "--output-format", "concise", *SELECT, "pkg"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        first = _read_until(process.stdout, "Found ")
        assert "JIT110" in first
        (project / "pkg" / "step.py").write_text(HAZARD.format(comment="  # noqa: JIT110"))
        second = _read_until(process.stdout, "Found ")
        assert "JIT112" in second and "JIT110" not in second
        assert "\x1b[2J" not in first + second  # stdout is a pipe: never cleared
    finally:
        process.kill()
        process.wait(timeout=30)
    err = process.stderr.read()
    assert "Starting linter in watch mode..." in err and "File change detected..." in err


def _read_until(stream: io.TextIOBase, marker: str, seconds: float = 120) -> str:
    deadline = time.monotonic() + seconds
    text = ""
    while time.monotonic() < deadline:
        line = stream.readline()
        text += line
        if line.startswith(marker):
            return text
    raise AssertionError(f"no {marker!r} within {seconds} s: {text!r}")


def test_add_noqa_with_ignore_noqa_is_refused(project):
    status, _, err = run_cli("--add-noqa", "--ignore-noqa", *SELECT, "pkg")
    assert status == 2 and "already suppressed" in err
    assert "noqa" not in (project / "pkg" / "step.py").read_text()
