"""The hooks in .pre-commit-hooks.yaml, run by the real `pre-commit try-repo`.

try-repo clones this repository at its HEAD commit (passed explicitly, so uncommitted work in
the checkout cannot leak into the clone half-done) and pip-installs it into a fresh
environment, so this test needs the package index that pip uses.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jitlint.catalogue import section_code
from jitlint.rules import all_rules

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or importlib.util.find_spec("pre_commit") is None,
    reason="needs git and pre-commit",
)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    identity = {"NAME": "jitlint tests", "EMAIL": "tests@jitlint.invalid"}
    for who in ("AUTHOR", "COMMITTER"):
        for key, value in identity.items():
            env[f"GIT_{who}_{key}"] = value
    return env


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=_env(), check=True, capture_output=True)


def _head() -> str:
    proc = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def _try_repo(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "--ref", _head()]
    return subprocess.run(
        [*command, "--color=never", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    cell["source"] = source.splitlines(keepends=True)
    document = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1) + "\n"


def test_hooks_flag_and_fix_a_hazard_and_skip_an_empty_commit(tmp_path):
    assert (REPO / ".git").exists(), "try-repo needs this repository as a git checkout"
    assert (REPO / ".pre-commit-hooks.yaml").is_file()
    rule = all_rules()["JIT110"]
    source = section_code(rule, "Example")
    assert source is not None and "[0, 1]" in source
    _git(tmp_path, "init", "-q")
    (tmp_path / "step.py").write_text(source, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("total(x, axes=[0, 1])\n", encoding="utf-8")
    (tmp_path / "nb.ipynb").write_text(_notebook(source), encoding="utf-8")
    # An excluded file: pre-commit names it, the hooks' --force-exclude skips it.
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nextend-exclude = ["vendor"]\n')
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "x.py").write_text(source, encoding="utf-8")
    _git(tmp_path, "add", "step.py", "notes.txt", "nb.ipynb", "pyproject.toml", "vendor/x.py")
    _git(tmp_path, "commit", "-q", "-m", "a hazard")

    proc = _try_repo(tmp_path, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    # The check hook fails and prints the finding; the fix hook rewrites the file.
    assert "step.py:12:30: JIT110" in out, out
    assert "- hook id: jitlint\n- exit code: 1" in out, out
    assert "- hook id: jitlint-fix\n- files were modified by this hook" in out, out
    fixed = (tmp_path / "step.py").read_text(encoding="utf-8")
    assert "axes=(0, 1)" in fixed and "axes=[0, 1]" not in fixed
    # types_or: [python, pyi, jupyter]: the notebook is checked and fixed, the text file is
    # not touched.
    assert "nb.ipynb:cell 1:12:30: JIT110" in out, out
    assert "axes=(0, 1)" in (tmp_path / "nb.ipynb").read_text(encoding="utf-8")
    assert (tmp_path / "notes.txt").read_text() == "total(x, axes=[0, 1])\n"
    # The config's excludes hold for the files pre-commit names.
    assert "vendor/x.py" not in out, out
    assert (tmp_path / "vendor" / "x.py").read_text(encoding="utf-8") == source
    # The cache directory keeps itself out of git.
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert status.stdout.split() == ["M", "nb.ipynb", "M", "step.py"]

    _git(tmp_path, "commit", "-q", "-am", "fixed")
    _git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    proc = _try_repo(tmp_path, "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    # No files: pre-commit does not even start jitlint.
    assert out.count("(no files to check)Skipped") == 2, out
