"""`-w/--watch`: lint, then lint again whenever a linted file or a config file changes.

Changes are found by polling, so no file-system notification package is needed. Twice a
second it stats each linted file (modification time and size) and lists the folders that hold
them, up to the working directory (a file added, removed or renamed there changes a listing),
and stats the config files in those folders. Finding the files again walks the whole tree
(gitignore rules and excludes: a third of a second for a thousand files), so it is done only
every `REDISCOVER_SECONDS` and after each run: a file in a folder that held no linted file is
seen within that time. The screen is cleared before each run only when stdout is a terminal:
a log or a pipe keeps every run's report. Ctrl-C ends it (exit 0).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TextIO

Stamps = dict[str, object]
CONFIG_NAMES = ("pyproject.toml", "jitlint.toml", ".gitignore")
POLL_SECONDS = 0.5
REDISCOVER_SECONDS = 10.0
_CLEAR = "\x1b[2J\x1b[3J\x1b[H"  # erase the screen and the scrollback, cursor home


def stamps(files: Iterable[str], cwd: Path | None = None) -> Stamps:
    """(mtime, size) of each file, the names in each folder from theirs up to `cwd` (the
    working directory), and (mtime, size) of the config files in those folders. A file that
    vanished is absent (which is a change)."""
    from jitlint.engine.cache import CACHE_DIR

    top = os.path.abspath(cwd or Path.cwd())
    found: Stamps = {}
    folders = {top}
    for name in files:
        path = os.path.abspath(name)
        _stamp(path, found)
        folder = os.path.dirname(path)
        # Up to the working directory; a file outside it has only its own folder listed.
        while folder not in folders:
            folders.add(folder)
            parent = os.path.dirname(folder)
            if parent == folder or not folder.startswith(top + os.sep):
                break
            folder = parent
    for folder in folders:
        # The cache's own folder appears on the first run: not a change of the project.
        with contextlib.suppress(OSError):  # a vanished folder is absent: a change
            found[folder] = frozenset(os.listdir(folder)) - {CACHE_DIR}
        for config in CONFIG_NAMES:
            _stamp(os.path.join(folder, config), found)
    return found


def _stamp(path: str, found: Stamps) -> None:
    try:
        info = os.stat(path)
    except OSError:
        return
    found[path] = (info.st_mtime_ns, info.st_size)


def _notify(message: str, stream: TextIO) -> None:
    stream.write(f"[{datetime.now():%H:%M:%S}] {message}\n")
    stream.flush()


def watch(
    run_once: Callable[[], int],
    find_files: Callable[[], list[str]],
    *,
    screen: TextIO | None = None,
    log: TextIO | None = None,
    poll_seconds: float = POLL_SECONDS,
    rediscover_seconds: float = REDISCOVER_SECONDS,
    max_runs: int | None = None,
) -> int:
    """Call `run_once`, then again each time the stamps of the files `find_files()` names
    differ from what they were before the last run. `screen` (stdout) is cleared before a run
    when it is a terminal; notes go to `log` (stderr). `max_runs` stops after that many runs
    (for tests); the status is the last run's."""
    screen = screen if screen is not None else sys.stdout
    log = log if log is not None else sys.stderr
    terminal = screen.isatty()
    runs, status = 0, 0
    try:
        files = find_files()
        before = stamps(files)
        _notify("Starting linter in watch mode...", log)
        while True:
            status = run_once()
            runs += 1
            screen.flush()
            if max_runs is not None and runs >= max_runs:
                return status
            found_at = time.monotonic()
            while True:
                time.sleep(poll_seconds)
                if time.monotonic() - found_at >= rediscover_seconds:
                    files, found_at = find_files(), time.monotonic()
                now = stamps(files)
                if now != before:
                    break
            if terminal:
                screen.write(_CLEAR)
            _notify("File change detected...", log)
            files = find_files()
            before = stamps(files)
    except KeyboardInterrupt:
        return 0
