"""Per-file budgets: a file that takes too much CPU time or memory becomes a finding.

Linting one file is bounded in size (`max-file-size`), but not every input of a given size
is cheap: the model's analyses are Python, and a pathological file could keep a worker busy
for minutes or grow it by gigabytes. Inside `budget(...)`, a CPU-time interval timer
(`ITIMER_VIRTUAL`, so a loaded machine does not count against a file) samples the CPU time
and the resident memory the process gained since the file began, every `_SAMPLE` seconds of
CPU, and raises `OverBudget` when either is over its limit. The caller turns it into a
JIT001 finding and goes on with the next file.

`OverBudget` is a BaseException: rule hooks run under `except Exception` (a crashing rule
is reported, not fatal), and the budget must get past them. It is never raised while a
module is being imported (rules and analyses are imported on first use) or in a gc
callback, only at the next sample after. The sample cannot interrupt native code (libcst's
parser), so memory can overshoot by what one parse allocates; the size limit bounds that
(bench/README.md, "Memory and limits").

Timers and signal handlers belong to the main thread: elsewhere (jitlint embedded in a
threaded program), on platforms without `setitimer`, or with both limits 0, nothing is
enforced. Resident memory is read from /proc on Linux; elsewhere the peak is used, which
only catches a file that raises the process's peak.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

DEFAULT_SECONDS = 120.0  # CPU seconds per file (its lint, or every pass of its fix)
DEFAULT_MEMORY = 1024 * 1024 * 1024  # bytes of resident memory a file may add
_SAMPLE = 0.05  # CPU seconds between checks


class OverBudget(BaseException):
    """Raised inside `budget(...)`; the message says which limit and how to raise it."""


class Cancelled(BaseException):
    """Raised inside `budget(..., cancelled=...)` once `cancelled()` is true: the editor
    server drops the lint of a buffer that changed again meanwhile."""


def budget_behind(exc: BaseException) -> OverBudget | Cancelled | None:
    """The `OverBudget` an exception was raised while handling, if any: code that cleans up
    in a `finally` (libcst's position codegen reads what the interrupted work never
    wrote) can turn the budget's exception into a KeyError that a rule's `except
    Exception` would then report as a crash."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, (OverBudget, Cancelled)):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def can_enforce() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _must_not_raise(frame: FrameType | None) -> bool:
    """Whether a module is being imported, or a garbage-collector callback runs. An
    exception in an import would leave other modules holding classes of a half-run module
    that the next import runs again (a rule's dispatch on them then fails with KeyError,
    file after file); one in a gc callback is swallowed, and breaks its owner's bookkeeping."""
    callbacks = {getattr(c, "__code__", None) for c in gc.callbacks}
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<frozen importlib") or code in callbacks:
            return True
        frame = frame.f_back
    return False


@contextmanager
def budget(
    seconds: float | None, memory: int | None, cancelled: Callable[[], bool] | None = None
) -> Iterator[None]:
    """Raise `OverBudget` if the body uses more than `seconds` of CPU time or grows the
    process by more than `memory` bytes (None or 0: no limit), and `Cancelled` once
    `cancelled()` is true (checked at the same samples)."""
    if not (seconds or memory or cancelled) or not can_enforce():
        yield
        return
    start_cpu = time.process_time()
    start_memory = _resident_bytes()

    def check(signum: int, frame: FrameType | None) -> None:
        if _must_not_raise(frame):
            return  # the next sample will
        if cancelled is not None and cancelled():
            raise Cancelled("superseded")
        if seconds and time.process_time() - start_cpu > seconds:
            raise OverBudget(
                f"took more than {seconds:g} s of CPU time to lint; skipped "
                "(raise `max-file-seconds` to lint it)"
            )
        if memory:
            grown = _resident_bytes() - start_memory
            if grown > memory:
                amount = f"{memory >> 20} MiB" if memory >= 1 << 20 else f"{memory} bytes"
                raise OverBudget(
                    f"needed more than {amount} of memory to lint; skipped "
                    "(raise `max-file-memory` to lint it)"
                )

    previous = signal.signal(signal.SIGVTALRM, check)
    signal.setitimer(signal.ITIMER_VIRTUAL, _SAMPLE, _SAMPLE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0, 0)
        signal.signal(signal.SIGVTALRM, previous if previous is not None else signal.SIG_DFL)
