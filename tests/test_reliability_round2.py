"""Regression tests of issue #19 (reliability, round 2), one or more per item: no input may
hang, crash, garble a run or change code it should not. tests/test_fault_injection.py runs
every input kind together, tests/test_kill.py the `kill -9`s."""

from __future__ import annotations

import io
import json
import os
import resource
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from helpers import run_cli
from test_fault_injection import run_jitlint

from jitlint import fix_source, lint_source
from jitlint.frontends.cli import main

HAZARD = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
FIXED = "import jax\ng = jax.jit(lambda x: x)\n"
TRACED_IF = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_cli_bytes(*args: str, stdin: bytes = b"") -> tuple[int, bytes, str]:
    """Run `jitlint ARGS` in this process with byte streams: (status, stdout bytes, stderr)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 2
            out.flush()
    finally:
        sys.stdin = saved
    return status, out.buffer.getvalue(), err.getvalue()


def json_findings(*args: str) -> tuple[int, list[tuple[str, int, int, str]], str]:
    status, out, err = run_cli("--format", "json", "--no-cache", *args)
    found = [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)]
    return status, found, err


# ---- 1. a form feed in the indentation ------------------------------------------------------
FORM_FEED_FIRST = (
    "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n"
    "\x0c    y = 1\n    return x if x > 0 else -x\n"
)
FORM_FEED_OWN_LINE = (
    "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n"
    "    y = 1\n\x0c    return x if x > 0 else -x\n"
)


def test_a_form_feed_before_a_block_does_not_shift_the_next_lines_columns():
    [finding] = lint_source(FORM_FEED_FIRST, select=["JIT101"])
    assert (finding.line, finding.column) == (7, 17)  # `x > 0`; libcst alone says 18
    fixed = fix_source(FORM_FEED_FIRST, unsafe=True)
    assert not fixed.errors
    # Was `return xjnp.where(...)`: the edit landed one column late.
    assert fixed.source == FORM_FEED_FIRST.replace("x if x > 0 else -x", "jnp.where(x > 0, x, -x)")


def test_a_form_feed_on_the_findings_own_line_is_kept_and_the_fix_applied():
    [finding] = lint_source(FORM_FEED_OWN_LINE, select=["JIT101"])
    assert (finding.line, finding.column) == (7, 18)
    fixed = fix_source(FORM_FEED_OWN_LINE, unsafe=True)
    assert not fixed.errors and len(fixed.applied) == 1  # was silently not applied
    assert fixed.source == FORM_FEED_OWN_LINE.replace(
        "x if x > 0 else -x", "jnp.where(x > 0, x, -x)"
    )


def test_a_form_feed_at_module_level_and_in_strings_and_comments():
    source = (
        '\x0cimport jax\ns = """\n\x0c  kept"""\n\x0c# note\n'
        "\x0cg = jax.jit(lambda x: x, static_argnums=3)\n"
    )
    [finding] = lint_source(source)
    assert (finding.line, finding.column) == (5, 42)
    assert fix_source(source).source == source.replace(", static_argnums=3", "")


def test_the_source_frame_and_the_diff_split_lines_as_python_does(workdir):
    (workdir / "m.py").write_text(FORM_FEED_OWN_LINE)
    status, out, _ = run_cli("--no-cache", "--select", "JIT101", "m.py")
    assert status == 1
    assert "7 | \x0c    return x if x > 0 else -x" in out
    status, out, _ = run_cli("--diff", "--unsafe-fixes", "--select", "JIT101", "m.py")
    assert "-\x0c    return x if x > 0 else -x\n+\x0c    return jnp.where(x > 0, x, -x)\n" in out


# ---- 2. --fix through symlinks --------------------------------------------------------------
@posix_only
def test_fix_writes_through_a_link_named_on_the_command_line(workdir):
    (workdir / "real.py").write_text(HAZARD)
    (workdir / "link.py").symlink_to("real.py")
    status, _, err = run_cli("--fix", "link.py")
    assert status == 0, err
    assert (workdir / "link.py").is_symlink()  # was replaced by a regular file
    assert (workdir / "real.py").read_text() == FIXED  # was left unfixed


@posix_only
def test_fix_of_a_link_and_its_target_in_one_tree(workdir):
    (workdir / "sub").mkdir()
    (workdir / "sub" / "real.py").write_text(HAZARD)
    (workdir / "a_link.py").symlink_to("sub/real.py")
    status, out, err = run_cli("--fix", "--format", "concise", ".")
    assert status == 0, err
    assert "0 remain" in out
    assert (workdir / "a_link.py").is_symlink()
    assert (workdir / "sub" / "real.py").read_text() == FIXED
    assert json_findings(".")[:2] == (0, [])  # "0 remain" is true


# ---- 3. stdin --fix always gives the buffer back -------------------------------------------
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"x = '\xe9'\n" + HAZARD.encode(), "cannot decode byte 0xe9"),
        (b"# padding\n" * 120_000 + HAZARD.encode(), "over the 1.0 MiB limit"),
        (HAZARD.encode("utf-16"), "UTF-16-LE"),
    ],
    ids=["undecodable", "too-big", "utf-16"],
)
def test_stdin_fix_echoes_what_it_cannot_fix(workdir, data, message):
    status, out, err = run_cli_bytes("-", "--fix", "--stdin-filename", "m.py", stdin=data)
    assert out == data  # was empty: an editor piping its buffer would wipe it
    assert status == 1 and message in err


class BoundedStdin(io.BytesIO):
    """stdin that fails a read of everything at once (`/dev/zero` piped in never ends)."""

    def read(self, size=-1):
        assert size is not None and 0 <= size <= (1 << 20) + 1, size
        return super().read(size)


def test_stdin_is_read_only_up_to_the_limit_and_streamed_back(workdir, monkeypatch):
    data = b"# padding\n" * 300_000 + HAZARD.encode()  # 3 MB
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(BoundedStdin(data)))
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["-", "--fix", "--stdin-filename", "m.py"])
        out.flush()
    assert status == 1 and out.buffer.getvalue() == data
    assert "file is more than 1.0 MiB, over the 1.0 MiB limit" in err.getvalue()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(BoundedStdin(data)))
    status, out_text, _ = run_cli("-", "--format", "concise", "--stdin-filename", "m.py")
    assert status == 1 and "m.py:1:1: JIT001 file is more than 1.0 MiB" in out_text


def test_stdin_fix_keeps_a_latin1_cookie_encoding_and_a_bom(workdir):
    latin = b"# -*- coding: latin-1 -*-\ns = '\xe9'\n" + HAZARD.encode()
    status, out, _ = run_cli_bytes("-", "--fix", "--stdin-filename", "m.py", stdin=latin)
    assert status == 0
    assert out == latin.replace(b", static_argnums=3", b"")  # was UTF-8 under the cookie
    bom = b"\xef\xbb\xbf" + HAZARD.replace("\n", "\r\n").encode()
    status, out, _ = run_cli_bytes("-", "--fix", "--stdin-filename", "m.py", stdin=bom)
    assert status == 0
    assert out == bom.replace(b", static_argnums=3", b"")  # the BOM was dropped
    clean = b"\xef\xbb\xbfx = 1\r\n"
    assert run_cli_bytes("-", "--fix", "--stdin-filename", "m.py", stdin=clean)[1] == clean


# ---- hangs: FIFOs, sockets, devices; too many workers --------------------------------------
@posix_only
def test_a_fifo_named_or_fixed_is_never_opened_for_a_blocking_read(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "good.py").write_text(HAZARD)
    for args in (["x.py", "good.py"], ["--fix", "x.py", "good.py"]):
        status, out, err = run_jitlint("--format", "concise", *args, cwd=tmp_path, timeout=60)
        assert status == 1, err
        assert "x.py:1:1: JIT001 a FIFO (named pipe), not a regular file; not read" in out.decode()
    assert (tmp_path / "good.py").read_text() == FIXED


@posix_only
def test_a_fifo_as_the_cache_file_or_given_to_verify_does_not_block(tmp_path):
    from jitlint.engine.cache import CACHE_DIR

    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\n")
    (tmp_path / "good.py").write_text(TRACED_IF)
    assert run_jitlint("good.py", cwd=tmp_path)[0] == 1
    [cache_file] = (tmp_path / CACHE_DIR).rglob("*.json")
    cache_file.unlink()
    os.mkfifo(cache_file)
    status, out, err = run_jitlint("--format", "concise", "good.py", cwd=tmp_path, timeout=60)
    assert status == 1 and b"good.py:5:8: JIT101" in out, err
    os.mkfifo(tmp_path / "x.py")
    status, out, err = run_jitlint("verify", "x.py", "good.py", cwd=tmp_path, timeout=60)
    assert status == 2 and "x.py: cannot read: a FIFO (named pipe)" in err
    assert b"good.py:3 f: skipped" in out


@posix_only
def test_a_link_to_a_device_is_refused_before_any_read(workdir):
    (workdir / "zero.py").symlink_to("/dev/zero")
    status, found, _ = json_findings("zero.py")
    assert status == 1 and found == [("zero.py", 1, 1, "JIT001")]


def test_reads_stop_at_the_size_limit_whatever_stat_says(tmp_path, monkeypatch):
    from jitlint.system import reading

    path = tmp_path / "grows.py"
    path.write_bytes(b"x = 1\n" * 1000)
    real_stat = os.stat

    def small(target, *args, **kwargs):  # as /proc files do: a size of 0
        info = real_stat(target, *args, **kwargs)
        if str(target) == str(path):
            return os.stat_result((*info[:6], 0, *info[7:]))
        return info

    monkeypatch.setattr(reading.os, "stat", small)
    with pytest.raises(reading.TooLarge) as raised:
        reading.read_regular_file(str(path), 100)
    assert raised.value.size == 101 and not raised.value.exact


@posix_only
def test_too_many_workers_for_the_open_file_limit_fall_back_to_one_process(tmp_path):
    for index in range(40):
        (tmp_path / f"m{index:02d}.py").write_text(HAZARD)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = 64 if hard == resource.RLIM_INFINITY else min(64, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    try:  # the child inherits the limit; this process only opens a few pipes meanwhile
        status, out, err = run_jitlint(
            "--no-cache", "-j", "200", "--format", "json", ".", cwd=tmp_path, timeout=120
        )
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert status == 1, err  # was: OSError, then no exit at all
    assert "cannot start 40 worker processes" in err or "cannot start 200" in err
    assert len(json.loads(out)) == 40


def test_a_pool_that_cannot_start_is_abandoned_for_one_process(monkeypatch, capsys):
    from jitlint.system import workers

    class Refusing:
        _processes: dict = {}

        def submit(self, *args, **kwargs):
            raise OSError(24, "Too many open files")

        def shutdown(self, **kwargs):
            pass

    monkeypatch.setattr(workers, "process_pool", lambda count: Refusing())
    with workers.Workers(4, min_batch=2) as pool:
        assert list(pool.map(abs, [-1, -2, -3])) == [1, 2, 3]
        assert list(pool.map(abs, [-4, -5])) == [4, 5]  # not tried again
    assert "cannot start 4 worker processes (Too many open files)" in capsys.readouterr().err


# ---- crashes --------------------------------------------------------------------------------
@posix_only
def test_a_symlink_loop_in_a_walked_tree_is_reported_once(workdir):
    (workdir / "good.py").write_text(HAZARD)
    (workdir / "a.py").symlink_to("b.py")
    (workdir / "b.py").symlink_to("a.py")
    status, found, err = json_findings(".")  # was RuntimeError from Path.resolve()
    assert status == 1, err
    assert [(f[0], f[3]) for f in found] == [
        ("a.py", "JIT001"),
        ("b.py", "JIT001"),
        ("good.py", "JIT112"),
    ]


@pytest.mark.parametrize("pattern", ["\\", "!", "[z-a]"])
@pytest.mark.parametrize(
    ("key", "template"),
    [
        ("exclude", "exclude = [{0}]"),
        ("extend-exclude", "extend-exclude = [{0}]"),
        ("per-file-ignores", '[tool.jitlint.per-file-ignores]\n{0} = ["JIT101"]'),
    ],
)
def test_an_invalid_pattern_is_a_config_error_naming_key_and_pattern(
    workdir, key, template, pattern
):
    quoted = json.dumps(pattern)
    body = template.format(quoted)
    header = "" if body.startswith("[") else "[tool.jitlint]\n"
    (workdir / "pyproject.toml").write_text(header + body + "\n")
    (workdir / "good.py").write_text(HAZARD)
    status, out, err = run_cli(".")
    assert status == 2 and out == ""  # was a traceback and exit 1, as if findings were found
    assert f"`tool.jitlint.{key}`" in err and f"invalid pattern {pattern!r}" in err, err


@pytest.mark.parametrize("pattern", ["\\", "!", "[z-a]"])
@pytest.mark.parametrize("flag", ["--exclude", "--extend-exclude", "--per-file-ignores"])
def test_an_invalid_pattern_on_the_command_line_is_a_usage_error(workdir, flag, pattern):
    (workdir / "good.py").write_text(HAZARD)
    value = f"{pattern}:JIT101" if flag == "--per-file-ignores" else f"ok,{pattern}"
    status, out, err = run_cli(f"{flag}={value}", ".")
    # Was a traceback (pathspec's error or re.error) and exit 1, as if findings were found.
    assert status == 2 and out == "", err
    assert f"argument {flag}: invalid pattern {pattern!r}" in err, err


def test_an_invalid_line_in_a_gitignore_is_passed_over(workdir):
    (workdir / ".gitignore").write_text("[z-a]\nskipped.py\n")
    (workdir / "skipped.py").write_text(HAZARD)
    (workdir / "good.py").write_text(HAZARD)
    status, found, err = json_findings(".")
    assert status == 1, err
    assert [f[0] for f in found] == ["good.py"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: entry[2][0].update(line="2"),  # a string where an int belongs
        lambda entry: entry[2][0].update(line=True),
        lambda entry: entry[2][0].update(fix={"edits": 3}),
        lambda entry: entry[2][0].update(severity=7),
        lambda entry: entry.__setitem__(5, []),  # variants not a table
        lambda entry: entry.__setitem__(4, [1, 2]),
        lambda entry: entry.__setitem__(2, {"a": 1}),
    ],
)
def test_cache_entries_of_the_wrong_types_are_discarded(workdir, damage):
    from jitlint.engine.cache import CACHE_DIR

    (workdir / "pyproject.toml").write_text("[tool.jitlint]\n")
    for name in ("a.py", "b.py"):
        (workdir / name).write_text(HAZARD)
    expected = [("a.py", 2, 41, "JIT112"), ("b.py", 2, 41, "JIT112")]
    status, out, _ = run_cli("--format", "json", ".")
    assert status == 1
    [cache_file] = (workdir / CACHE_DIR).rglob("*.json")
    data = json.loads(cache_file.read_text())
    damage(data["a.py"])
    cache_file.write_text(json.dumps(data))
    for _ in range(2):  # the damaged entry is a miss, then rewritten
        status, out, err = run_cli("--format", "json", ".")
        assert status == 1 and "Traceback" not in err, err  # was TypeError while sorting
        assert [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)] == expected
    assert json.loads(cache_file.read_text())["a.py"][2][0]["line"] == 2


@pytest.mark.parametrize("value", ["-1", "-5", "99999999999999999999", "257", "two", "1.5"])
def test_jobs_must_be_from_0_to_the_cap(workdir, value):
    (workdir / "good.py").write_text(HAZARD)
    status, out, err = run_cli(f"--jobs={value}", "good.py")
    assert status == 2 and out == ""  # -1/-5 were accepted silently, the big one overflowed
    assert "--jobs/-j" in err


@pytest.mark.parametrize("value", ["0", "1", "256"])
def test_jobs_in_range_run(workdir, value):
    (workdir / "good.py").write_text(HAZARD)
    assert run_cli("-j", value, "--no-cache", "good.py")[0] == 1


# ---- wrong results --------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_fix_in_a_machine_format_keeps_stdout_to_the_format(workdir, fmt):
    (workdir / "a.py").write_text(HAZARD)
    (workdir / "b.py").write_text(TRACED_IF)  # no safe fix: remains
    status, out, err = run_cli("--fix", "--format", fmt, ".")
    assert status == 1
    assert "Fixed 1 finding; 1 remains." in err and "Fixed" not in out
    if fmt == "github":
        assert out.startswith("::error file=b.py,")
        assert len(out.splitlines()) == 1
    else:
        json.loads(out)  # was followed by the summary line: never valid JSON


def test_statistics_in_json_is_json_and_sarif_refuses_it(workdir):
    (workdir / "a.py").write_text(HAZARD)
    status, out, _ = run_cli("--statistics", "--format", "json", "a.py")
    assert status == 1
    assert json.loads(out) == [
        {"code": "JIT112", "name": "bad-static-spec", "count": 1, "fixable": True}
    ]
    status, out, err = run_cli("--statistics", "--format", "sarif", "a.py")
    assert status == 2 and out == "" and "--statistics prints text or json" in err


def test_a_missing_path_does_not_stop_fix_for_the_others(workdir):
    (workdir / "good.py").write_text(HAZARD)
    status, _, err = run_cli("--fix", "missing.py", "good.py")
    assert status == 2 and "missing.py: no such file or directory" in err
    assert (workdir / "good.py").read_text() == FIXED  # was left unfixed


def test_a_missing_path_does_not_stop_verify_for_the_others(workdir):
    (workdir / "good.py").write_text(TRACED_IF)
    status, out, err = run_cli("verify", "missing.py", "good.py")
    assert status == 2 and "missing.py: no such file or directory" in err
    assert "good.py:3 f: skipped" in out  # was: nothing verified at all


def test_force_exclude_applies_to_the_stdin_filename(workdir):
    (workdir / "pyproject.toml").write_text(
        '[tool.jitlint]\nextend-exclude = ["generated"]\nforce-exclude = true\n'
    )
    data = HAZARD.encode()
    name = "generated/m.py"
    status, out, _ = run_cli_bytes("-", "--format", "json", "--stdin-filename", name, stdin=data)
    assert (status, json.loads(out)) == (0, [])  # was linted
    status, out, _ = run_cli_bytes("-", "--fix", "--stdin-filename", name, stdin=data)
    assert (status, out) == (0, data)  # handed back unchanged, not fixed
    # Without force-exclude, a named stdin file is linted as before.
    (workdir / "pyproject.toml").write_text('[tool.jitlint]\nextend-exclude = ["generated"]\n')
    status, out, _ = run_cli_bytes("-", "--format", "json", "--stdin-filename", name, stdin=data)
    assert status == 1 and len(json.loads(out)) == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_file_is_reported_as_such(encoding):
    [finding] = lint_source(HAZARD.encode(encoding))
    assert finding.code == "JIT001"
    assert "UTF-16" in finding.message or "UTF-32" in finding.message  # was "NUL bytes"
    assert "binary" not in finding.message


# ---- decided and documented: what --fix refuses to replace ---------------------------------
@posix_only
def test_fix_leaves_a_read_only_file_alone_even_as_root(workdir):
    path = workdir / "ro.py"
    path.write_text(HAZARD)
    path.chmod(0o444)
    (workdir / "good.py").write_text(HAZARD)
    status, out, err = run_cli("--fix", "--format", "concise", ".")
    assert status == 2
    assert "ro.py: not written: the file is read-only" in err
    assert path.read_text() == HAZARD and "ro.py:2:41: JIT112" in out
    assert (workdir / "good.py").read_text() == FIXED


@posix_only
def test_fix_leaves_a_hard_linked_file_alone(workdir):
    (workdir / "a.py").write_text(HAZARD)
    os.link(workdir / "a.py", workdir / "other_name.txt")
    status, _, err = run_cli("--fix", "a.py")
    assert status == 2 and "a.py: not written: it has 2 hard links" in err
    assert (workdir / "a.py").read_text() == HAZARD
    assert (workdir / "a.py").stat().st_ino == (workdir / "other_name.txt").stat().st_ino


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_fix_as_root_keeps_another_users_file_theirs(workdir):
    path = workdir / "theirs.py"
    path.write_text(HAZARD)
    os.chown(path, 65534, 65534)
    assert run_cli("--fix", "theirs.py")[0] == 0
    assert path.read_text() == FIXED
    assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534)  # was root's


def test_an_edit_during_the_write_is_not_overwritten(workdir, monkeypatch):
    from jitlint.engine.fixloop import files

    path = workdir / "a.py"
    path.write_text(HAZARD)
    real_fsync = os.fsync

    def meddle(fd):  # between the first comparison and the rename
        real_fsync(fd)
        path.write_text(HAZARD + "# edited meanwhile\n")

    monkeypatch.setattr(files.os, "fsync", meddle)
    status, _, err = run_cli("--fix", "a.py")
    assert status == 2 and "changed on disk since it was read" in err
    assert path.read_text().endswith("# edited meanwhile\n")
    assert [p.name for p in workdir.iterdir()] == ["a.py"]  # no temporary file left


# ---- 7. memory and budgets ------------------------------------------------------------------
def _many_functions(count: int) -> str:
    block = "@jax.jit\ndef f_{0}(x):\n    if x > 0:\n        x = -x\n    return x\n\n"
    return "import jax\n\n" + "".join(block.format(i) for i in range(count))


def test_positions_are_resolved_once_per_file(monkeypatch):
    from libcst.metadata import MetadataWrapper

    calls = []
    real = MetadataWrapper.resolve

    def counting(self, provider):
        calls.append(provider)
        return real(self, provider)

    monkeypatch.setattr(MetadataWrapper, "resolve", counting)
    assert len(lint_source(_many_functions(3))) == 3
    assert len(calls) == 1  # the tracing model and the engine each resolved them


def test_a_file_over_its_time_budget_is_a_finding_and_is_not_fixed(workdir):
    from jitlint.system.budget import can_enforce

    if not can_enforce():
        pytest.skip("no CPU-time timer here")
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-seconds = 1\n")
    (workdir / "heavy.py").write_text(_many_functions(1500))
    (workdir / "good.py").write_text(HAZARD)
    status, out, err = run_cli("--no-cache", "-j1", "--format", "json", ".")
    assert status == 1, err
    by_path = {f["path"]: f for f in json.loads(out)}
    assert by_path["heavy.py"]["code"] == "JIT001"
    assert "took more than 1 s of CPU time to lint" in by_path["heavy.py"]["message"]
    assert by_path["good.py"]["code"] == "JIT112"  # a small file fits the budget
    status, out, err = run_cli("-j1", "--fix", "--unsafe-fixes", "--format", "concise", ".")
    assert status == 1 and "heavy.py:1:1: JIT001 took more than" in out
    assert (workdir / "heavy.py").read_text() == _many_functions(1500)  # left as it was
    assert (workdir / "good.py").read_text() == FIXED


def test_a_budget_never_cuts_an_import_short(tmp_path, monkeypatch):
    """Rules and analyses are imported on first use, inside a file's budget: an import cut
    short would leave other modules holding classes the next import makes again."""
    import time

    from jitlint.system.budget import OverBudget, budget, can_enforce

    if not can_enforce():
        pytest.skip("no CPU-time timer here")
    (tmp_path / "slow_import_19.py").write_text(
        "import time\nend = time.process_time() + 0.3\n"
        "while time.process_time() < end:\n    pass\nDONE = True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(OverBudget), budget(0.01, None):
        import slow_import_19  # noqa: F401

        end = time.process_time() + 5
        while time.process_time() < end:
            pass
    assert sys.modules["slow_import_19"].DONE
    del sys.modules["slow_import_19"]


def test_a_budget_never_raises_in_a_gc_callback():
    import gc
    import time

    from jitlint.system.budget import OverBudget, budget, can_enforce

    if not can_enforce():
        pytest.skip("no CPU-time timer here")
    finished = []

    def slow_callback(phase, info):
        if phase == "start" and not finished:
            end = time.process_time() + 0.3
            while time.process_time() < end:
                pass
            finished.append(phase)

    gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(OverBudget), budget(0.01, None):
            gc.collect()
            end = time.process_time() + 5
            while time.process_time() < end:
                pass
    finally:
        gc.callbacks.remove(slow_callback)
    assert finished == ["start"]  # the callback ran to its end


def test_a_result_cut_short_by_a_budget_is_not_cached(workdir):
    from jitlint.system.budget import can_enforce

    if not can_enforce():
        pytest.skip("no CPU-time timer here")
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-seconds = 0.001\n")
    (workdir / "heavy.py").write_text(_many_functions(100))
    status, out, _ = run_cli("-j1", "--format", "json", "heavy.py")
    assert status == 1 and [f["code"] for f in json.loads(out)] == ["JIT001"]
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-seconds = 0\n")
    status, out, _ = run_cli("-j1", "--format", "json", "heavy.py")
    # The linted findings, not the JIT001 of the first run from the cache.
    assert status == 1 and [f["code"] for f in json.loads(out)] == ["JIT101"] * 100


def test_a_file_over_its_memory_budget_is_a_finding(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-memory = 1\n")
    (tmp_path / "heavy.py").write_text(_many_functions(400))
    status, out, err = run_jitlint("--no-cache", "-j1", "--format", "json", ".", cwd=tmp_path)
    assert status == 1, err
    [finding] = json.loads(out)
    assert finding["code"] == "JIT001"
    assert "needed more than 1 bytes of memory to lint" in finding["message"]


def test_budgets_are_enforced_in_worker_processes_too(workdir):
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-seconds = 0.001\n")
    for index in range(16):
        (workdir / f"m{index:02d}.py").write_text(_many_functions(200 if index == 7 else 1))
    status, out, err = run_jitlint("--no-cache", "-j", "2", "--format", "json", ".", cwd=workdir)
    assert status == 1, err
    heavy = [f for f in json.loads(out) if f["path"] == "m07.py"]
    assert [f["code"] for f in heavy] == ["JIT001"] and "CPU time" in heavy[0]["message"]


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("max-file-seconds = -1", "must be a number of seconds"),
        ("max-file-seconds = true", "must be a number of seconds"),
        ("max-file-memory = 1.5", "must be a number of bytes"),
    ],
)
def test_budget_settings_are_validated(workdir, line, fragment):
    (workdir / "pyproject.toml").write_text(f"[tool.jitlint]\n{line}\n")
    status, _, err = run_cli(".")
    assert status == 2 and fragment in err


def test_stdin_over_budget_is_echoed(workdir):
    from jitlint.system.budget import can_enforce

    if not can_enforce():
        pytest.skip("no CPU-time timer here")
    (workdir / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-seconds = 0.001\n")
    data = _many_functions(400).encode()
    status, out, err = run_cli_bytes("-", "--fix", "--stdin-filename", "m.py", stdin=data)
    assert (status, out) == (1, data) and "CPU time" in err


def test_workers_end_when_their_parent_does(tmp_path):
    """A worker tied to its parent exits when the parent is killed (the kill test shows it
    for whole runs; this is the tie alone)."""
    import signal
    import subprocess
    import time

    marker = tmp_path / "child.pid"
    script = (
        "import os, sys, time\n"
        "from jitlint.system.workers import tie_to_parent\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    tie_to_parent(parent)\n"
        f"    open({str(marker)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "time.sleep(60)\n"
    )
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    repo = str(Path(__file__).resolve().parents[1])
    parent = subprocess.Popen(
        [sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": repo}
    )
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(marker.read_text())
    parent.send_signal(signal.SIGKILL)
    parent.wait()

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
        except OSError:
            return False

    if not os.path.exists("/proc"):
        pytest.skip("no /proc")
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_a_budget_hidden_behind_a_cleanup_error_still_ends_the_file():
    """libcst's position codegen reads, in a `finally`, what the interrupted work never
    wrote: the budget's exception comes out as a KeyError, which a rule's `except Exception`
    would report as a crash. The linter finds the budget behind it and ends the file."""
    from jitlint.engine.linter import FileResult, _rule_failed
    from jitlint.system.budget import OverBudget, budget_behind

    over = OverBudget("took more than 1 s")
    try:
        try:
            raise over
        finally:
            {}["missing"]  # the shape of libcst's cleanup
    except KeyError as exc:
        hidden = exc
    assert budget_behind(hidden) is over
    with pytest.raises(OverBudget):
        _rule_failed(FileResult("f.py"), "JIT101", hidden)
    try:
        {}["x"]
    except KeyError as exc:
        plain = exc
    assert budget_behind(plain) is None
    result = FileResult("f.py")
    _rule_failed(result, "JIT101", plain)
    assert result.errors and "KeyError" in result.errors[0]
