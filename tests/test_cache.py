"""The result cache and `--jobs`: the same findings, in the same order, however they are made."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import run_cli

import jitlint.engine.runner as runner
from jitlint.catalogue import section_code
from jitlint.engine.cache import CACHE_DIR
from jitlint.rules import all_rules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a config, every rule's example (some twice) and clean files: more
    files than the runner's threshold for using a process pool."""
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nselect = ['ALL']\n")
    package = tmp_path / "pkg"
    package.mkdir()
    examples = [section_code(rule, "Example") for rule in all_rules().values()]
    examples = [source for source in examples if source]
    assert examples
    count = max(2 * runner._MIN_FILES_FOR_POOL, 2 * len(examples))
    for index in range(count):
        source = examples[index % len(examples)] if index % 3 else f"x_{index} = {index}\n"
        (package / f"mod_{index:03}.py").write_text(source, encoding="utf-8")
    return tmp_path


def cli(cwd: Path, *args: str) -> tuple[int, str, str]:
    before = os.getcwd()
    os.chdir(cwd)
    try:
        return run_cli(*args)
    finally:
        os.chdir(before)


def findings(cwd: Path, *args: str) -> list[dict[str, object]]:
    status, out, err = cli(cwd, "--format", "json", *args)
    assert status == 1, err
    assert "error" not in err, err
    result = json.loads(out)
    assert result
    return result


def _no_linting(*args: object, **kwargs: object) -> object:
    raise AssertionError("a cached file was linted again")


def test_cached_rerun_gives_the_same_findings(project, monkeypatch):
    fresh = findings(project, "--no-cache", "-j1")
    assert not (project / CACHE_DIR).exists()  # --no-cache writes nothing
    assert findings(project, "-j1") == fresh  # cold: lints and writes the cache
    assert (project / CACHE_DIR / ".gitignore").is_file()
    with monkeypatch.context() as patch:
        patch.setattr(runner, "lint_text", _no_linting)
        assert findings(project, "-j1") == fresh  # warm: nothing is linted
        # From a subdirectory the cache is still the project's (the config root).
        assert findings(project / "pkg", "-j1", ".") == [
            {**d, "path": str(d["path"]).removeprefix("pkg/")} for d in fresh
        ]
        assert not (project / "pkg" / CACHE_DIR).exists()


def test_cache_misses_on_changed_content_and_settings(project, monkeypatch):
    findings(project, "-j1")
    target = next(p for p in sorted((project / "pkg").iterdir()) if "error:" in p.read_text())
    target.write_text("x = 1\n", encoding="utf-8")
    assert findings(project, "-j1") == findings(project, "-j1", "--no-cache")
    assert target.name not in json.dumps(findings(project, "-j1"))
    # A narrower selection must not be answered with the wider one's cached results.
    code = sorted({str(d["code"]) for d in findings(project, "--no-cache")})[0]
    narrow = findings(project, "-j1", "--select", code)
    assert narrow == findings(project, "--no-cache", "--select", code)
    assert {d["code"] for d in narrow} == {code}


def test_unwritable_or_corrupt_cache_is_not_an_error(project):
    fresh = findings(project, "--no-cache")
    (project / CACHE_DIR).write_text("not a directory")
    assert findings(project, "-j1") == fresh  # `findings` checks stderr says nothing
    (project / CACHE_DIR).unlink()
    findings(project, "-j1")
    for cached in (project / CACHE_DIR).rglob("*.json"):
        cached.write_text("{ truncated")
    assert findings(project, "-j1") == fresh


def test_jobs_give_identical_ordered_output(project):
    for fmt in ("json", "concise", "full", "sarif", "github"):
        outputs = {
            jobs: cli(project, "--format", fmt, "--no-cache", "-j", str(jobs)) for jobs in (1, 2, 3)
        }
        assert outputs[1][0] == 1
        assert outputs[1] == outputs[2] == outputs[3], fmt
    ordered = findings(project, "--no-cache", "-j2")
    keys = [(d["path"], d["line"], d["column"], d["code"]) for d in ordered]
    assert keys == sorted(keys)


def test_cache_with_two_jobs_matches(project):
    fresh = findings(project, "--no-cache", "-j1")
    assert findings(project, "-j2") == fresh
    assert findings(project, "-j2") == fresh


def test_stdin_is_not_cached(project):
    source = (project / "pkg" / "mod_001.py").read_bytes()
    before = os.getcwd()
    os.chdir(project)
    try:
        status, out, _ = run_cli(
            "--format", "json", "-", "--stdin-filename", "pkg/stdin.py", stdin=source
        )
    finally:
        os.chdir(before)
    assert status == 1
    assert json.loads(out)
    assert not (project / CACHE_DIR).exists()
