"""Bad input never crashes a run: each case gives a clear message and the right exit code,
and the other files are still linted (issue: reliability)."""

from __future__ import annotations

import json
import os
import sys

import pytest
from helpers import run_cli

from jitlint import fix_source, lint_source

HAZARD = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(HAZARD)
    return tmp_path


def findings(*args):
    status, out, err = run_cli("--format", "json", "--select", "JIT001,JIT11", *args)
    return status, [(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(out)], err


def assert_one_jit001(result, path, fragment):
    status, found, _ = result
    assert status == 1
    assert ("good.py", 2, "JIT112") in [f[:3] for f in found], "the other file must be linted"
    [problem] = [f for f in found if f[0] == path]
    assert problem[2] == "JIT001" and fragment in problem[3], problem


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("py2.py", b'print "old"\n', "Missing parentheses"),
        ("syntax.py", b"def f(:\n", "SyntaxError: invalid syntax"),
        ("latin.py", b"x = '\xe9'\n", "cannot decode byte 0xe9"),
        ("cookie.py", b"# coding: nope\nx = 1\n", "encoding"),
        ("binary.py", bytes(range(256)), "NUL bytes"),
        ("deep.py", b"x = " + b"(" * 3000 + b"1" + b")" * 3000 + b"\n", "too deep to lint"),
        ("chain.py", b"x = " + b"-" * 5000 + b"1\n", "too deep to lint"),
    ],
)
def test_bad_files_are_jit001_and_the_run_goes_on(workdir, name, content, fragment):
    (workdir / name).write_bytes(content)
    assert_one_jit001(findings("."), name, fragment)


def test_a_10_mb_generated_file_is_refused_by_size(workdir):
    line = b"VALUES_%07d = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]\n"
    (workdir / "generated.py").write_bytes(b"".join(line % i for i in range(200_000)))
    assert os.path.getsize(workdir / "generated.py") > 10_000_000
    assert_one_jit001(findings("."), "generated.py", "over the 1.0 MiB limit")


def test_max_file_size_setting(workdir):
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-size = 10\n")
    status, found, _ = findings("good.py")
    assert status == 1 and found[0][2] == "JIT001" and "max-file-size" in found[0][3]
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-size = 0\n")
    assert findings("good.py")[1][0][2] == "JIT112"


def test_empty_file_is_clean(workdir):
    (workdir / "empty.py").write_bytes(b"")
    assert findings("empty.py")[:2] == (0, [])


def test_syntax_newer_than_this_python_that_libcst_reads_is_linted():
    source = "type Number = int\n" + HAZARD
    assert [d.code for d in lint_source(source)] == ["JIT112"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_line_endings_keep_positions_and_survive_fixes(newline):
    source = HAZARD.replace("\n", newline)
    [finding] = lint_source(source)
    assert (finding.line, finding.column) == (2, 41)
    fixed = fix_source(source).source
    assert fixed == "import jax\ng = jax.jit(lambda x: x)\n".replace("\n", newline)


def test_mixed_endings_bom_tabs_form_feeds_and_unicode_names():
    source = "import jax\r\n\x0c\ndef größe(x):\n\treturn x\rg = jax.jit(größe, static_argnums=1)\n"
    [finding] = lint_source(source)
    assert (finding.line, finding.code) == (5, "JIT112")
    fixed = fix_source(source).source
    assert fixed == source.replace(", static_argnums=1", "")
    data = b"\xef\xbb\xbf" + source.encode()
    assert [d.line for d in lint_source(data)] == [5]


def test_unreadable_file(workdir, monkeypatch):
    from jitlint.system import reading

    real_open = os.open

    def guarded(path, *args, **kwargs):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    (workdir / "secret.py").write_text("x = 1\n")
    monkeypatch.setattr(reading.os, "open", guarded)
    assert_one_jit001(findings("--no-cache", "."), "secret.py", "cannot read: Permission denied")


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_broken_and_looping_symlinks_and_a_directory_named_like_a_file(workdir):
    (workdir / "broken.py").symlink_to(workdir / "nowhere.py")
    (workdir / "loop").mkdir()
    (workdir / "loop" / "again").symlink_to(workdir / "loop")
    (workdir / "pkg.py").mkdir()
    (workdir / "pkg.py" / "inner.py").write_text(HAZARD)
    status, found, err = findings(".")
    assert status == 1, err
    assert sorted(f[0] for f in found) == ["good.py", "pkg.py/inner.py"]


def test_paths_given_twice_are_linted_once(workdir):
    status, found, _ = findings("good.py", "./good.py", ".")
    assert status == 1 and len(found) == 1


def test_path_outside_the_config_root(tmp_path, monkeypatch):
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT112"]\n')
    (outside / "far.py").write_text(HAZARD)
    monkeypatch.chdir(project)
    status, out, err = run_cli("--format", "json", str(outside / "far.py"))
    assert status == 0, err  # the project's config applies to it: JIT112 is ignored
    assert json.loads(out) == []


def test_a_crashing_rule_is_reported_and_the_rest_runs(workdir, monkeypatch):
    from jitlint.rules import all_rules

    def explode(self, node):
        raise RuntimeError("boom")

    monkeypatch.setattr(all_rules()["JIT110"], "visit_Call", explode)
    (workdir / "other.py").write_text(HAZARD)
    status, out, err = run_cli("--format", "json", "--no-cache", "--select", "JIT11", ".")
    assert status == 2
    assert "internal error in JIT110: RuntimeError: boom" in err
    # The rule, the path and where in the rule it failed.
    assert "good.py: internal error in JIT110: RuntimeError: boom (at " in err
    assert sorted(f["path"] for f in json.loads(out)) == ["good.py", "other.py"]


def test_file_changed_on_disk_during_fix_is_not_overwritten(workdir, monkeypatch):
    from jitlint.engine.fixloop import runner

    real_fix_text = runner.fix_text

    def meddle(*args, **kwargs):
        outcome = real_fix_text(*args, **kwargs)
        (workdir / "good.py").write_text(HAZARD + "# edited meanwhile\n")
        return outcome

    monkeypatch.setattr(runner, "fix_text", meddle)
    status, _, err = run_cli("--fix", "good.py")
    assert status == 2
    assert "changed on disk since it was read; not overwritten" in err
    assert (workdir / "good.py").read_text().endswith("# edited meanwhile\n")


def test_fix_on_a_file_that_cannot_be_replaced_is_reported(workdir, monkeypatch):
    from jitlint.engine.fixloop import files

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    (workdir / "other.py").write_text(HAZARD)
    monkeypatch.setattr(files.os, "replace", refuse)
    status, out, err = run_cli("--fix", "--format", "concise", ".")
    assert status == 2
    assert "good.py: not written: Permission denied" in err
    assert "other.py: not written" in err
    assert "JIT112" in out  # the findings remain reported
    assert (workdir / "good.py").read_text() == HAZARD
    assert not [p for p in os.listdir(workdir) if p.endswith(".jitlint")]
