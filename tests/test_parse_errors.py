"""JIT001: unreadable, undecodable or unparsable files are findings; the run goes on."""

from __future__ import annotations

import json
import os
import sys

import pytest
from helpers import run_cli

from jitlint import lint_source


def only(source, **kwargs):
    return [(d.code, d.line, d.column, d.message) for d in lint_source(source, **kwargs)]


def test_syntax_error_at_the_place_of_the_problem():
    assert only("x = 1\ndef f(:\n    pass\n") == [("JIT001", 2, 7, "SyntaxError: invalid syntax")]


def test_python2_print():
    [(code, line, _, message)] = only('print "hello"\n')
    assert (code, line) == ("JIT001", 1)
    assert "Missing parentheses" in message


def test_undecodable_bytes():
    [(code, line, column, message)] = only(b"x = 1\ny = '\xff'\n")
    assert (code, line, column) == ("JIT001", 2, 6)
    assert "cannot decode byte 0xff as utf-8" in message


def test_bad_coding_declaration():
    [(code, _, _, message)] = only(b"# -*- coding: klingon -*-\nx = 1\n")
    assert code == "JIT001" and "encoding" in message


def test_nul_bytes_look_binary():
    [(code, _, _, message)] = only(b"\x7fELF\x00\x01")
    assert code == "JIT001" and "NUL bytes" in message


def test_latin1_cookie_and_bom_decode():
    assert only(b"# coding: latin-1\nname = '\xe9'\n") == []
    assert only(b"\xef\xbb\xbfimport jax\n") == []


def test_jit001_can_be_ignored():
    assert only("def f(:\n", ignore=["JIT001"]) == []


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "secret.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run_cli("--format", "json", "secret.py")
    assert status == 1
    assert json.loads(out)[0]["message"].startswith("cannot read")


def test_one_bad_file_does_not_stop_the_run(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("def f(:\n")
    (tmp_path / "b.py").write_text("import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n")
    monkeypatch.chdir(tmp_path)
    status, out, _ = run_cli("--format", "json", "--select", "JIT001,JIT112", ".")
    assert status == 1
    assert [(f["path"], f["code"]) for f in json.loads(out)] == [
        ("a.py", "JIT001"),
        ("b.py", "JIT112"),
    ]
