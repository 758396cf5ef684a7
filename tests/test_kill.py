"""`kill -9` during `--fix` over a few hundred fixable files (issue #19): after each kill,
of the main process alone or of its whole process group, every file is either original or
fully fixed, and no process of the run is left behind (workers die with the main process,
so none goes on writing, or races the next run). A last run fixes what is left.

CI runs this module with the rest of the suite (.ci/run).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads process groups from /proc"
)

REPO = Path(__file__).resolve().parents[1]
HAZARD = b"import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
FIXED = b"import jax\ng = jax.jit(lambda x: x)\n"
FILES = 300


def group_members(group: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(b")") + 2 :].split()
        if fields[0] != b"Z" and int(fields[2]) == group:
            members.append(int(entry))
    return members


def start_fix(root: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "jitlint", "--fix", "--no-cache", "-q", "-j", "2", "."],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the workers join it
    )


def contents(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.glob("*.py")}


def wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def kill_during_fix(root: Path, whole_group: bool, after_first_write: bool) -> None:
    process = start_fix(root)
    group = process.pid
    before = contents(root)
    if after_first_write:
        wait_for(lambda: contents(root) != before or process.poll() is not None, 120)
    else:
        wait_for(lambda: len(group_members(group)) > 1 or process.poll() is not None, 30)
    if whole_group:
        os.killpg(group, signal.SIGKILL)
    else:
        os.kill(process.pid, signal.SIGKILL)  # the main process alone
    process.wait()
    left = wait_for(lambda: not group_members(group), 15)
    survivors = group_members(group)
    for pid in survivors:  # do not leave them running after a failure
        os.kill(pid, signal.SIGKILL)
    assert left, f"processes left behind: {survivors}"
    # Nothing changes once every process is gone: nobody is still writing.
    settled = contents(root)
    time.sleep(0.5)
    assert contents(root) == settled
    for name, data in settled.items():
        assert data in (HAZARD, FIXED), f"{name} is neither original nor fixed: {data!r}"


def test_a_killed_worker_ends_the_run_cleanly(tmp_path):
    for index in range(FILES):
        (tmp_path / f"m{index:03d}.py").write_bytes(HAZARD)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "jitlint", "--fix", "--no-cache", "-q", "-j", "2", "."],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    group = process.pid
    assert wait_for(lambda: len(group_members(group)) > 1 or process.poll() is not None, 60)
    workers = [pid for pid in group_members(group) if pid != process.pid]
    if workers:
        os.kill(workers[0], signal.SIGKILL)
    _, err = process.communicate(timeout=300)
    assert wait_for(lambda: not group_members(group), 15), group_members(group)
    if workers and process.returncode == 2:
        assert "a worker process died unexpectedly" in err.decode()
        assert b"Traceback" not in err
    else:  # it finished before the kill landed
        assert process.returncode == 0, err
    for name, data in contents(tmp_path).items():
        assert data in (HAZARD, FIXED), name


def test_kill_9_during_fix_leaves_every_file_original_or_fixed_and_no_process(tmp_path):
    for index in range(FILES):
        (tmp_path / f"m{index:03d}.py").write_bytes(HAZARD)
    kill_during_fix(tmp_path, whole_group=False, after_first_write=False)  # workers starting
    kill_during_fix(tmp_path, whole_group=False, after_first_write=True)  # main, writing
    kill_during_fix(tmp_path, whole_group=True, after_first_write=True)  # everything
    kill_during_fix(tmp_path, whole_group=False, after_first_write=True)
    process = start_fix(tmp_path)
    assert process.wait(timeout=600) == 0
    assert set(contents(tmp_path).values()) == {FIXED}
    assert len(contents(tmp_path)) == FILES
