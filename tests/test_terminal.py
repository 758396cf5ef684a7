"""Colour (--color, NO_COLOR, FORCE_COLOR; none when piped) and progress on a terminal (#18)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import run_cli

from jitlint.config import Settings
from jitlint.engine.runner import RuleSets, Task, run
from jitlint.frontends.terminal import TerminalProgress, use_colour

ESC = "\x1b["
SAFE_FIX = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("choice", "environ", "terminal", "expected"),
    [
        ("auto", {}, True, True),
        ("auto", {}, False, False),  # piped
        ("auto", {"NO_COLOR": "1"}, True, False),
        ("auto", {"NO_COLOR": ""}, True, True),  # set but empty: not set (no-color.org)
        ("auto", {"FORCE_COLOR": "1"}, False, True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),
        ("auto", {"TERM": "dumb"}, True, False),
        ("always", {"NO_COLOR": "1"}, False, True),  # the flag beats the environment
        ("never", {"FORCE_COLOR": "1"}, True, False),
    ],
)
def test_colour_decision(choice, environ, terminal, expected):
    stream = Terminal() if terminal else io.StringIO()
    assert use_colour(choice, stream, environ) is expected


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "a.py").write_text(SAFE_FIX)
    return tmp_path


def test_text_formats_are_coloured_on_request_only(workdir, monkeypatch):
    _, plain, _ = run_cli("a.py")  # the test's stdout is no terminal: no colour
    assert ESC not in plain
    _, coloured, _ = run_cli("--color", "always", "a.py")
    assert f"{ESC}1ma.py{ESC}0m:2:" in coloured  # the path
    assert f"{ESC}1;31mJIT112{ESC}0m" in coloured  # the code
    assert f"{ESC}1;31m^" in coloured  # the caret
    assert f"{ESC}1;36mhelp{ESC}0m:" in coloured
    # Without the escapes, the text is the plain text.
    stripped = coloured
    for code in ("1;31m", "1;34m", "1;36m", "1m", "36m", "0m", "1;32m"):
        stripped = stripped.replace(ESC + code, "")
    assert stripped == plain
    _, concise, _ = run_cli("--color", "always", "--format", "concise", "a.py")
    assert f"{ESC}1;31mJIT112" in concise
    assert ESC not in run_cli("--color", "always", "--format", "json", "a.py")[1]
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ESC in run_cli("a.py")[1]
    assert ESC not in run_cli("--color", "never", "a.py")[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert ESC not in run_cli("a.py")[1]


def test_an_output_file_is_not_coloured_by_a_terminal_stdout(workdir, monkeypatch):
    run_cli("-o", "report.txt", "a.py")
    assert ESC not in (workdir / "report.txt").read_text()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_appears_only_after_the_delay_and_is_erased():
    stream, clock = Terminal(), Clock()
    progress = TerminalProgress(stream, delay=2.0, clock=clock)
    progress.planned(10)
    progress.done(3)
    assert stream.getvalue() == ""  # a quick run shows nothing
    clock.now += 2.5
    progress.done()
    assert stream.getvalue() == "\rjitlint: 4/10 files"
    progress.done()  # redrawn at most every `interval` seconds
    assert stream.getvalue().count("jitlint:") == 1
    clock.now += 1
    progress.planned(2)  # the project pass adds files to lint again
    assert stream.getvalue().endswith("\rjitlint: 5/12 files")
    progress.close()
    assert stream.getvalue().endswith("\r" + " " * len("jitlint: 5/12 files") + "\r")


def test_progress_only_on_a_terminal_and_never_when_quiet():
    assert TerminalProgress.for_run(io.StringIO(), quiet=False) is None
    assert TerminalProgress.for_run(Terminal(), quiet=True) is None
    assert isinstance(TerminalProgress.for_run(Terminal(), quiet=False), TerminalProgress)


class Recorder:
    def __init__(self) -> None:
        self.planned_total = 0
        self.finished = 0

    def planned(self, count: int) -> None:
        self.planned_total += count

    def done(self, count: int = 1) -> None:
        self.finished += count


def test_the_runner_reports_every_file_it_lints_including_cache_hits(tmp_path: Path):
    for index in range(3):
        (tmp_path / f"m{index}.py").write_text(SAFE_FIX)
    rule_sets = RuleSets(Settings(root=tmp_path), {"JIT112"})
    tasks = [
        Task(p.name, str(p), rule_sets.codes_for(p), {}) for p in sorted(tmp_path.glob("*.py"))
    ]
    for _ in range(2):  # the second run is answered from the cache
        recorder = Recorder()
        result = run(tasks, jobs=1, cache_root=tmp_path, progress=recorder)
        assert len(result.diagnostics) == 3
        assert recorder.planned_total == recorder.finished >= 3


def test_the_cli_draws_progress_on_a_terminal_stderr_and_erases_it(workdir, monkeypatch):
    import contextlib
    import sys

    from jitlint.frontends.cli import main

    original = TerminalProgress.__init__

    def immediate(self, stream, **_):
        original(self, stream, delay=0.0, interval=0.0)

    monkeypatch.setattr(TerminalProgress, "__init__", immediate)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["--no-cache", "a.py"]) == 1
    assert "jitlint: 1/1 files" in terminal.getvalue()
    assert terminal.getvalue().endswith(" " * len("jitlint: 1/1 files") + "\r")  # erased
    assert "jitlint:" not in out.getvalue()
    terminal.seek(0)
    terminal.truncate()
    with contextlib.redirect_stdout(io.StringIO()):
        main(["--quiet", "--no-cache", "a.py"])
    assert terminal.getvalue() == ""
