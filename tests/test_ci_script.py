"""CI (.ci/run) runs the whole suite, so the fault-injection module and the `kill -9` test
of #19, the server's conversation tests of #18 and the pre-commit hook test are among what
it runs: nothing narrows pytest's selection, and the extras those tests need are installed."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
CI = REPO / ".ci" / "run"
NARROWING = ("-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-x", "--lf", "--co")


def _commands() -> list[list[str]]:
    lines = CI.read_text(encoding="utf-8").splitlines()
    return [shlex.split(line, comments=True) for line in lines if line.strip()]


def test_ci_runs_pytest_over_the_whole_tests_folder():
    pytest_runs = [c for c in _commands() if c[:3] == ["python", "-m", "pytest"]]
    assert len(pytest_runs) == 1, pytest_runs
    [arguments] = [run[3:] for run in pytest_runs]
    assert not [a for a in arguments if a.split("=")[0] in NARROWING], arguments
    assert not [a for a in arguments if not a.startswith("-")], "paths narrow the run"
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    options = settings["tool"]["pytest"]["ini_options"]
    assert options["testpaths"] == ["tests"]
    assert not any(flag in options.get("addopts", "") for flag in NARROWING)
    for module in ("test_fault_injection.py", "test_kill.py", "test_server.py"):
        assert (REPO / "tests" / module).is_file(), module


def test_ci_installs_what_the_server_and_hook_tests_need():
    [install] = [c for c in _commands() if c[:2] == ["pip", "install"]]
    [extras] = [a for a in install if a.startswith(".[")]
    assert "test" in extras[2:-1].split(",")
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    test_extra = " ".join(settings["project"]["optional-dependencies"]["test"])
    for needed in ("pygls", "lsprotocol", "pre-commit", "flake8"):
        assert needed in test_extra, needed
