"""`--fix`, `--unsafe-fixes`, `--diff` on files and stdin: what is written, printed, returned."""

from __future__ import annotations

import os
import sys

import pytest
from helpers import run_cli

SAFE = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
SAFE_FIXED = "import jax\ng = jax.jit(lambda x: x)\n"
UNSAFE_ONLY = (
    "import jax\nf = jax.jit(lambda x, a: x, static_argnums=1)\n"
    "def run(x):\n    axes = [0]\n    return f(x, axes)\n"
)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fix_writes_safe_fixes_and_exits_zero_when_nothing_remains(workdir):
    (workdir / "a.py").write_text(SAFE)
    status, out, err = run_cli("--fix", "--select", "JIT1", "a.py")
    assert (workdir / "a.py").read_text() == SAFE_FIXED
    assert status == 0, err
    assert "Fixed 1 finding; 0 remain." in out


def test_unsafe_fixes_need_the_flag(workdir):
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    status, out, _ = run_cli("--fix", "--select", "JIT110", "--format", "concise", "b.py")
    assert status == 1
    assert (workdir / "b.py").read_text() == UNSAFE_ONLY
    assert "Fixed 0 findings; 1 remains." in out
    status, out, _ = run_cli("--fix", "--unsafe-fixes", "--select", "JIT110", "b.py")
    assert status == 0
    assert "return f(x, tuple(axes))" in (workdir / "b.py").read_text()
    assert "Fixed 1 finding (1 unsafe); 0 remain." in out


def test_unsafe_fixes_from_config(workdir):
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nunsafe-fixes = true\n")
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    assert run_cli("--fix", "--select", "JIT110", "b.py")[0] == 0
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    assert run_cli("--fix", "--no-unsafe-fixes", "--select", "JIT110", "b.py")[0] == 1


def test_unfixable_from_config(workdir):
    (workdir / "pyproject.toml").write_text('[tool.jitlint]\nunfixable = ["JIT112"]\n')
    (workdir / "a.py").write_text(SAFE)
    status, _, _ = run_cli("--fix", "a.py")
    assert status == 1 and (workdir / "a.py").read_text() == SAFE


def test_diff_prints_and_writes_nothing(workdir):
    (workdir / "a.py").write_text(SAFE)
    status, out, err = run_cli("--diff", "a.py")
    assert status == 1
    assert out.splitlines() == [
        "--- a/a.py",
        "+++ b/a.py",
        "@@ -1,2 +1,2 @@",
        " import jax",
        "-g = jax.jit(lambda x: x, static_argnums=3)",
        "+g = jax.jit(lambda x: x)",
    ]
    assert "Would fix 1 finding." in err
    assert (workdir / "a.py").read_text() == SAFE


def test_diff_without_fixes_exits_zero(workdir):
    (workdir / "c.py").write_text("import jax\n")
    assert run_cli("--diff", "c.py")[:2] == (0, "")


def test_files_without_findings_are_not_touched(workdir):
    (workdir / "c.py").write_text("import jax\nf = jax.jit(lambda x: x)\n")
    before = os.stat(workdir / "c.py").st_mtime_ns
    (workdir / "a.py").write_text(SAFE)
    run_cli("--fix", "--unsafe-fixes", ".")
    assert os.stat(workdir / "c.py").st_mtime_ns == before


def test_fix_keeps_crlf_bom_and_mode(workdir):
    path = workdir / "w.py"
    path.write_bytes(b"\xef\xbb\xbf" + SAFE.replace("\n", "\r\n").encode())
    path.chmod(0o640)
    assert run_cli("--fix", "w.py")[0] == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + SAFE_FIXED.replace("\n", "\r\n").encode()
    assert path.stat().st_mode & 0o777 == 0o640


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_read_only_directory_is_reported_and_the_run_goes_on(workdir):
    locked = workdir / "locked"
    locked.mkdir()
    (locked / "a.py").write_text(SAFE)
    (workdir / "b.py").write_text(SAFE)
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        status, _, err = run_cli("--fix", ".")
    finally:
        locked.chmod(0o700)
    assert status == 2
    assert "locked/a.py: not written" in err
    assert (workdir / "b.py").read_text() == SAFE_FIXED
    assert (locked / "a.py").read_text() == SAFE


def test_stdin_fix_prints_the_fixed_text(workdir):
    status, out, err = run_cli("-", "--fix", "--stdin-filename", "mod.py", stdin=SAFE.encode())
    assert status == 0
    assert out == SAFE_FIXED
    assert "Fixed 1 finding" in err


def test_full_format_marks_fixable_findings(workdir):
    (workdir / "a.py").write_text(SAFE)
    (workdir / "b.py").write_text(UNSAFE_ONLY)
    _, out, _ = run_cli("--select", "JIT11", ".")
    assert "a.py:2:41: JIT112 [*] " in out
    assert "b.py:5:17: JIT110 `a`" in out  # unsafe: no [*] without --unsafe-fixes
    assert "(unsafe: needs --unsafe-fixes)" in out
    assert "[*] 1 fixable with the `--fix` option (1 more with `--unsafe-fixes`)." in out
