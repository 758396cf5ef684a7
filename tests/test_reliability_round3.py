"""Regression tests of issue #31 item 6 (the command line's last ways to garble a file);
the editor server's items are in tests/test_server_reliability.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from jitlint import lint_source
from jitlint.engine.fixloop.files import NotWritable, write_atomically

REPO = Path(__file__).resolve().parents[1]
TRACED_IF = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _codes(*args: str) -> list[tuple[int, str]]:
    status, out, err = run_cli("--format", "json", *args)
    assert status in (0, 1), err
    return [(f["line"], f["code"]) for f in json.loads(out)]


# ---- a magic continued by a backslash -----------------------------------------------------------
def test_a_magic_continued_onto_an_indented_line_is_masked_whole(workdir):
    cell = ["!pip install \\\n", "    jax\n", *TRACED_IF.splitlines(keepends=True)]
    notebook = {
        "cells": [
            {"cell_type": "code", "source": cell, "metadata": {}, "outputs": [],
             "execution_count": None},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    (workdir / "n.ipynb").write_text(json.dumps(notebook))
    _, out, err = run_cli("--format", "json", "--no-cache", "n.ipynb")
    assert [f["code"] for f in json.loads(out)] == ["JIT101"], (out, err)


# ---- --add-noqa and noqa with unusual line breaks ----------------------------------------------
@pytest.mark.parametrize("separator", ["\f", "\u2028", "\x1c", "\x85"])
def test_add_noqa_after_a_line_separator_python_does_not_split_at(workdir, separator):
    text = TRACED_IF.replace("@jax.jit", f"s = 'a{separator}b'\n\n@jax.jit")
    (workdir / "m.py").write_text(text, encoding="utf-8")
    status, _, err = run_cli("--no-cache", "--add-noqa", "m.py")
    assert status == 0, err
    result = (workdir / "m.py").read_text(encoding="utf-8")
    assert f"s = 'a{separator}b'\n" in result  # the string is untouched
    assert "    if x > 0:  # noqa: JIT101\n" in result
    assert lint_source(result) == []


def test_add_noqa_after_a_form_feed_line(workdir):
    text = TRACED_IF.replace("@jax.jit", "\f\n@jax.jit")
    (workdir / "m.py").write_text(text)
    run_cli("--no-cache", "--add-noqa", "m.py")
    assert "    if x > 0:  # noqa: JIT101\n" in (workdir / "m.py").read_text()


def test_noqa_with_cr_only_line_endings(workdir):
    text = TRACED_IF.replace("if x > 0:", "if x > 0:  # noqa: JIT101").replace("\n", "\r")
    (workdir / "cr.py").write_bytes(text.encode())
    assert _codes("--no-cache", "cr.py") == []
    plain = TRACED_IF.replace("\n", "\r")
    (workdir / "cr2.py").write_bytes(plain.encode())
    assert _codes("--no-cache", "cr2.py") == [(5, "JIT101")]
    status, _, err = run_cli("--no-cache", "--add-noqa", "cr2.py")
    assert status == 0, err
    assert (workdir / "cr2.py").read_bytes() == plain.replace(
        "if x > 0:", "if x > 0:  # noqa: JIT101"
    ).encode()
    assert _codes("--no-cache", "cr2.py") == []


# ---- stdin closed ------------------------------------------------------------------------------
def test_reading_stdin_when_it_is_closed_is_a_clear_error(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "-"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        # fd 0 closed in the child: the interpreter starts with sys.stdin = None.
        preexec_fn=lambda: os.close(0),
    )
    assert proc.returncode == 2, proc.stderr
    assert "stdin is closed" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---- extended attributes -----------------------------------------------------------------------
def _can_set_xattrs(path: Path) -> bool:
    try:
        os.setxattr(path, "user.jitlint-probe", b"1")
    except (OSError, AttributeError):
        return False
    os.removexattr(path, "user.jitlint-probe")
    return True


def test_fix_and_add_noqa_keep_extended_attributes(workdir):
    hazard = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
    (workdir / "f.py").write_text(hazard)
    (workdir / "n.py").write_text(TRACED_IF)
    if not _can_set_xattrs(workdir / "f.py"):
        pytest.skip("no user extended attributes on this file system")
    for name in ("f.py", "n.py"):
        os.setxattr(workdir / name, "user.origin", b"kept")
    _, _, err = run_cli("--no-cache", "--fix", "f.py")
    assert "static_argnums" not in (workdir / "f.py").read_text(), err
    _, _, err = run_cli("--no-cache", "--add-noqa", "n.py")
    assert "# noqa: JIT101" in (workdir / "n.py").read_text(), err
    for name in ("f.py", "n.py"):
        assert os.getxattr(workdir / name, "user.origin") == b"kept"


def test_an_attribute_that_cannot_be_kept_stops_the_write(workdir, monkeypatch):
    path = workdir / "f.py"
    path.write_text("old\n")
    if not _can_set_xattrs(path):
        pytest.skip("no user extended attributes on this file system")
    os.setxattr(path, "user.origin", b"kept")

    def refuse(*args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "setxattr", refuse)
    with pytest.raises(NotWritable, match=r"user\.origin"):
        write_atomically(path, b"new\n", b"old\n")
    assert path.read_text() == "old\n"
    assert [p.name for p in workdir.iterdir()] == ["f.py"]  # no temporary left


# ---- --config DIR ------------------------------------------------------------------------------
def test_config_given_a_directory_uses_the_config_in_it(workdir):
    (workdir / "settings").mkdir()
    (workdir / "settings" / "jitlint.toml").write_text('ignore = ["JIT101"]\n')
    (workdir / "m.py").write_text(TRACED_IF)
    assert _codes("--no-cache", "m.py") == [(5, "JIT101")]
    assert _codes("--no-cache", "--config", "settings", "m.py") == []


def test_config_given_a_directory_without_a_config_says_so(workdir):
    (workdir / "empty").mkdir()
    (workdir / "m.py").write_text(TRACED_IF)
    status, _, err = run_cli("--no-cache", "--config", "empty", "m.py")
    assert status == 2
    assert "a directory with no jitlint.toml" in err and "no such" not in err


# ---- per-file-ignores that can never match -----------------------------------------------------
def test_per_file_ignore_patterns_that_match_nothing_are_warned_about(workdir):
    absolute = (workdir / "m.py").as_posix()
    (workdir / "jitlint.toml").write_text(
        "[per-file-ignores]\n"
        f'"" = ["JIT101"]\n"!m.py" = ["JIT101"]\n"{absolute}" = ["JIT101"]\n'
        '"/m.py" = ["JIT110"]\n"m.py" = ["JIT113"]\n'
    )
    (workdir / "m.py").write_text(TRACED_IF)
    status, _, err = run_cli("--no-cache", "m.py")
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 3, err
    assert "'' is empty" in warnings[0]
    assert "'!m.py' only negates" in warnings[1]
    assert "is an absolute path" in warnings[2]
    assert status == 1  # JIT101 is still reported: none of those patterns applied
