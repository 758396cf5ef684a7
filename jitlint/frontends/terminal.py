"""What the command line does only on a terminal: colour, and progress for long runs."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TextIO

COLOR_CHOICES = ("auto", "always", "never")


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def use_colour(choice: str, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """`--color always|never` decides; `auto` colours a terminal unless NO_COLOR is set
    (https://no-color.org), and anything when FORCE_COLOR is set (NO_COLOR wins over it, as
    in CPython's own `_colorize`); TERM=dumb gets none."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    return _is_terminal(stream)


class TerminalProgress:
    """`jitlint: 120/1741 files` on a terminal's stderr, redrawn in place, shown only once
    a run has taken `delay` seconds (a quick run never flickers) and erased at the end,
    before any finding is printed."""

    def __init__(
        self,
        stream: TextIO,
        delay: float = 2.0,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.total = 0
        self.finished = 0
        self._drawn = 0  # length of the line on screen
        self._last_draw = float("-inf")

    @classmethod
    def for_run(cls, stream: TextIO, quiet: bool) -> TerminalProgress | None:
        """A progress line when `stream` is a terminal and the run is not `--quiet`."""
        return None if quiet or not _is_terminal(stream) else cls(stream)

    def planned(self, count: int) -> None:
        self.total += count
        self._draw()

    def done(self, count: int = 1) -> None:
        self.finished += count
        self._draw()

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0

    def _draw(self) -> None:
        now = self.clock()
        if now - self.started < self.delay or now - self._last_draw < self.interval:
            return
        self._last_draw = now
        text = f"jitlint: {self.finished}/{self.total} files"
        # Spaces, not an erase escape: a terminal that knows no escapes still shows it right.
        self.stream.write("\r" + text.ljust(self._drawn))
        self.stream.flush()
        self._drawn = max(self._drawn, len(text))
