"""`-w/--watch`: lint, then lint again whenever a linted file or a config file changes.

Changes are found by polling each file's modification time and size (no file-system
notification package is needed); the set of files is found again on every poll, so a new
file is seen too. The screen is cleared before each run only when stdout is a terminal: a
log or a pipe keeps every run's report. Ctrl-C ends it (exit 0).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TextIO

Stamps = dict[str, tuple[int, int]]
CONFIG_NAMES = ("pyproject.toml", "jitlint.toml", ".gitignore")
POLL_SECONDS = 0.5
_CLEAR = "\x1b[2J\x1b[3J\x1b[H"  # erase the screen and the scrollback, cursor home


def stamps(files: Iterable[str], cwd: Path | None = None) -> Stamps:
    """(mtime, size) of each file and of the config files in their folders and the working
    directory; a file that vanished is simply absent (which is a change)."""
    found: Stamps = {}
    folders = {os.path.abspath(cwd or Path.cwd())}
    for name in files:
        path = os.path.abspath(name)
        folders.add(os.path.dirname(path))
        _stamp(path, found)
    for folder in folders:
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
    current_stamps: Callable[[], Stamps],
    *,
    screen: TextIO | None = None,
    log: TextIO | None = None,
    poll_seconds: float = POLL_SECONDS,
    max_runs: int | None = None,
) -> int:
    """Call `run_once`, then again each time `current_stamps()` differs from what it was
    before the last run. `screen` (stdout) is cleared before a run when it is a terminal;
    notes go to `log` (stderr). `max_runs` stops after that many runs (for tests); the
    status is the last run's."""
    screen = screen if screen is not None else sys.stdout
    log = log if log is not None else sys.stderr
    terminal = screen.isatty()
    runs, status = 0, 0
    try:
        before = current_stamps()
        _notify("Starting linter in watch mode...", log)
        while True:
            status = run_once()
            runs += 1
            screen.flush()
            if max_runs is not None and runs >= max_runs:
                return status
            while True:
                time.sleep(poll_seconds)
                now = current_stamps()
                if now != before:
                    before = now
                    break
            if terminal:
                screen.write(_CLEAR)
            _notify("File change detected...", log)
    except KeyboardInterrupt:
        return 0
