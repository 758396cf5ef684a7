"""Fault injection (issue #19): one tree holding every kind of bad input beside good files,
run through `jitlint` in a subprocess (so a hang is a timeout and a runaway read hits a
memory limit, not the test run) in every `--format`, checked and fixed:

- the exit code is the one documented;
- stdout is well formed in every format (a machine format owns it, also with `--fix`);
- the good files' findings are reported beside the bad ones, each bad file once;
- no file changes that should not (links stay links; only fixable files change, to exactly
  their fixed text).

CI runs this module with the rest of the suite (.ci/run).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, sockets, devices")

REPO = Path(__file__).resolve().parents[1]
HAZARD = b"import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
FIXED = b"import jax\ng = jax.jit(lambda x: x)\n"
FORMATS = ["full", "concise", "json", "sarif", "github"]
MEMORY_LIMIT = 3 * 1024**3  # bytes of address space: an unbounded read fails fast

# A form feed at the start of an indented line: libcst moved it, so the finding on the next
# line was a column off and the fix landed inside a name.
FORM_FEED = (
    b"import jax\n\ndef f(x):\n\x0c    y = x\n    return jax.jit(lambda z: z, static_argnums=3)\n"
)
FORM_FEED_FIXED = FORM_FEED.replace(b", static_argnums=3", b"")
LATIN1 = b"# -*- coding: latin-1 -*-\ns = '\xe9'\n" + HAZARD
BOM = b"\xef\xbb\xbf" + HAZARD.replace(b"\n", b"\r\n")
BIG = b"# padding\n" * 120_000  # 1.2 MB, over the default 1 MiB limit

# display path -> a fragment of its one JIT001 message
BAD = {
    "fifo.py": "FIFO",
    "sock.py": "socket",
    "zero.py": "character device",
    "urandom.py": "character device",
    "loop_a.py": "symlink loop",
    "loop_b.py": "symlink loop",
    "utf16.py": "UTF-16-LE encoded",
    "utf16_nobom.py": "UTF-16-LE encoded",
    "binary.py": "NUL bytes",
    "big.py": "over the 1.0 MiB limit",
    "py2.py": "Missing parentheses",
    "bad_cookie.py": "encoding",
}
# display path -> (bytes before, bytes after --fix) of files whose findings --fix removes
FIXABLE = {
    "good.py": (HAZARD, FIXED),
    "formfeed.py": (FORM_FEED, FORM_FEED_FIXED),
    "latin1.py": (LATIN1, LATIN1.replace(b", static_argnums=3", b"")),
    "bom.py": (BOM, BOM.replace(b", static_argnums=3", b"")),
    **{f"pkg/m{i:02d}.py": (HAZARD, FIXED) for i in range(16)},  # enough for a worker pool
}


def run_jitlint(*args: str, cwd: Path, stdin: bytes = b"", timeout: float = 120) -> tuple:
    """(exit status, stdout bytes, stderr text) of `jitlint ARGS` in a fresh process group
    with bounded memory; a run still going after `timeout` is killed and fails the test."""
    script = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
        "from jitlint.frontends.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"jitlint {' '.join(args)} did not finish in {timeout} s")
    return process.returncode, out, err.decode("utf-8", "replace")


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under `root`: a link's target, a regular file's bytes, else its kind."""
    entries: dict[str, tuple[str, bytes | str]] = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(directory, name)
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                entries[relative] = ("link", os.readlink(path))
            elif path.is_file():
                entries[relative] = ("file", path.read_bytes())
            elif not path.is_dir():
                entries[relative] = ("special", "")
    return entries


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "pkg").mkdir()
    for name, (before, _) in FIXABLE.items():
        (root / name).write_bytes(before)
    (root / "clean.py").write_bytes(b"x = 1\n")
    # A link and its target in one walked tree: one file, fixed through the link.
    (root / "target_fixable.py").write_bytes(HAZARD)
    (root / "a_link.py").symlink_to("target_fixable.py")
    os.mkfifo(root / "fifo.py")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock.py"))
    server.close()  # the socket file stays
    (root / "zero.py").symlink_to("/dev/zero")
    (root / "urandom.py").symlink_to("/dev/urandom")
    (root / "loop_a.py").symlink_to("loop_b.py")
    (root / "loop_b.py").symlink_to("loop_a.py")
    (root / "dangling.py").symlink_to("nowhere.py")  # skipped, as editors' lock files are
    (root / "utf16.py").write_bytes(HAZARD.decode().encode("utf-16"))
    (root / "utf16_nobom.py").write_bytes(HAZARD.decode().encode("utf-16-le"))
    (root / "binary.py").write_bytes(bytes(range(256)))
    (root / "big.py").write_bytes(BIG)
    (root / "py2.py").write_bytes(b'print "old"\n')
    (root / "bad_cookie.py").write_bytes(b"# coding: nope\nx = 1\n")
    (root / "dir.py").mkdir()  # a directory named like a file: walked, holds nothing
    return root


def expected_findings() -> dict[str, str]:
    return {**{name: "JIT112" for name in FIXABLE}, "a_link.py": "JIT112", **BAD}


def well_formed(fmt: str, out: bytes, paths: set[str]) -> None:
    text = out.decode("utf-8")
    if fmt == "json":
        assert isinstance(json.loads(text), list)
    elif fmt == "sarif":
        document = json.loads(text)
        assert document["version"] == "2.1.0" and len(document["runs"]) == 1
    elif fmt == "github":
        for line in text.splitlines():
            assert re.match(r"^::(error|warning) file=[^,]+,line=\d+,.*title=JIT\d{3} .*::", line)
    elif fmt == "concise":
        lines = text.splitlines()
        findings = [line for line in lines if re.match(r"^\S+:\d+:\d+: JIT\d{3} ", line)]
        others = [line for line in lines if line not in findings]
        assert all(o.startswith(("Found ", "[*] ", "All checks", "Fixed ")) for o in others), others
    for path in paths:
        assert path in text, (fmt, path)


def json_findings(out: bytes) -> dict[str, list[dict]]:
    by_path: dict[str, list[dict]] = {}
    for finding in json.loads(out):
        by_path.setdefault(finding["path"], []).append(finding)
    return by_path


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_every_kind_of_bad_input_in_every_format(tree, fmt):
    before = snapshot(tree)
    status, out, err = run_jitlint(
        "--no-cache", "-j", "2", "--format", fmt, "--select", "JIT001,JIT11", ".", cwd=tree
    )
    assert status == 1, err
    assert "Traceback" not in err
    well_formed(fmt, out, set(expected_findings()))
    assert snapshot(tree) == before


def test_check_findings_name_each_bad_file_once_beside_the_good_ones(tree):
    status, out, err = run_jitlint(
        "--no-cache", "--format", "json", "--select", "JIT001,JIT11", ".", cwd=tree
    )
    assert status == 1, err
    found = json_findings(out)
    assert set(found) == set(expected_findings())  # nothing more: clean.py, dangling, dir.py
    for path, fragment in BAD.items():
        [finding] = found[path]
        assert finding["code"] == "JIT001" and fragment in finding["message"], finding
    for path in [*FIXABLE, "a_link.py"]:
        assert [f["code"] for f in found[path]] == ["JIT112"], path
    # The form feed no longer shifts the column of the finding after it.
    [formfeed] = found["formfeed.py"]
    assert (formfeed["line"], formfeed["column"]) == (5, 48)


@pytest.mark.parametrize("fmt", FORMATS)
def test_fix_every_kind_of_bad_input_in_every_format(tree, fmt):
    before = snapshot(tree)
    status, out, err = run_jitlint(
        "--no-cache", "-j", "2", "--fix", "--format", fmt, "--select", "JIT001,JIT11", ".",
        cwd=tree,
    )  # fmt: skip
    assert status == 1, err  # the bad files' JIT001 findings remain
    assert "Traceback" not in err and "internal error" not in err, err
    assert "Fixed 21 findings; 12 remain." in (
        err if fmt in ("json", "sarif", "github") else out.decode()
    )
    well_formed(fmt, out, set(BAD))
    after = snapshot(tree)
    expected = dict(before)
    for name, (_, fixed) in FIXABLE.items():
        expected[name] = ("file", fixed)
    expected["target_fixable.py"] = ("file", FIXED)  # written through a_link.py
    assert after == expected
    if fmt == "json":
        assert set(json_findings(out)) == set(BAD)


def test_stdin_bad_inputs_in_every_format(tmp_path):
    """What an editor pipes: each bad buffer comes back unchanged from `--fix`."""
    for data, fragment in [
        (HAZARD.decode().encode("utf-16"), "UTF-16"),
        (b"x = '\xe9'\n", "cannot decode"),
        (BIG + HAZARD, "over the 1.0 MiB limit"),
        (bytes(range(256)), "NUL bytes"),
    ]:
        status, out, err = run_jitlint(
            "-", "--fix", "--stdin-filename", "m.py", cwd=tmp_path, stdin=data
        )
        assert (status, out) == (1, data), err
        assert fragment in err
        for fmt in FORMATS:
            status, out, err = run_jitlint(
                "-", "--format", fmt, "--stdin-filename", "m.py", cwd=tmp_path, stdin=data
            )
            assert status == 1 and "Traceback" not in err, err
            well_formed(fmt, out, {"m.py"})
