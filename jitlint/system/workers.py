"""The `--jobs` worker processes: tied to the main process, and never a reason to hang.

Workers die with the main process. On Linux the kernel sends them SIGKILL when it dies
(`PR_SET_PDEATHSIG`); everywhere, a watchdog thread in each worker exits when its parent is
gone (a `kill -9` of the main process leaves no worker behind to keep working, or to race a
second run). Workers only compute: the main process does every write (engine/fixloop/runner.py).

A pool that cannot start (too many open files for `-j 4000` under `ulimit -n 256`, no more
processes, a failing initializer) is abandoned, its started workers killed, and the run goes
on in this process, with a warning.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from jitlint.system import MAX_JOBS

_WATCH_INTERVAL = 0.25  # seconds between a worker's checks that its parent is alive
_PR_SET_PDEATHSIG = 1

Item = TypeVar("Item")
Result = TypeVar("Result")


def default_jobs() -> int:
    return min(os.cpu_count() or 1, MAX_JOBS)


def tie_to_parent(parent: int) -> None:
    """Make this process end when process `parent` does (a pool initializer; also run by
    the verifier's worker)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the watchdog below still works
            pass
    if os.getppid() != parent:  # it died before the tie was made
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="jitlint-parent", daemon=True).start()


def _watch(parent: int) -> None:
    while True:
        time.sleep(_WATCH_INTERVAL)
        if os.getppid() != parent:
            os._exit(1)


def _ready() -> bool:
    return True


class Workers:
    """`map` in worker processes when `jobs` > 1 and the batch has at least `min_batch`
    items, else in this process. The pool is started on first use (a run answered from the
    cache never pays for it) with at most as many workers as that batch has items."""

    def __init__(self, jobs: int | None, min_batch: int = 16) -> None:
        self.jobs = min(jobs or default_jobs(), MAX_JOBS)
        self.min_batch = min_batch
        self._pool: Any = None
        self._failed = False

    def map(self, work: Callable[[Item], Result], items: list[Item]) -> Iterator[Result]:
        """Results in the order of `items`, as they come."""
        if self.jobs <= 1 or len(items) < self.min_batch or self._failed:
            return map(work, items)
        if self._pool is None:
            self._pool = self._start(min(self.jobs, len(items)))
            if self._pool is None:
                return map(work, items)
        chunk = max(1, len(items) // (self.jobs * 8))
        try:
            return self._pool.map(work, items, chunksize=chunk)  # submits every chunk now
        except OSError as exc:  # the spawn context starts workers as work is submitted
            self._abandon(exc)
            return map(work, items)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _start(self, count: int) -> Any:
        from concurrent.futures.process import BrokenProcessPool

        pool = process_pool(count)
        self._pool = pool
        try:
            pool.submit(_ready).result()  # with fork, every worker starts here
        except (OSError, BrokenProcessPool) as exc:
            self._abandon(exc)
            return None
        return pool

    def _abandon(self, exc: BaseException) -> None:
        pool, self._pool, self._failed = self._pool, None, True
        # The executor keeps started workers in a private dict; without killing them, they
        # wait for work forever and the interpreter waits for them at exit.
        started = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in started:
            try:
                process.kill()
                process.join(5)
            except (OSError, ValueError, AssertionError):
                pass
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(
            f"jitlint: warning: cannot start {self.jobs} worker processes ({reason}); "
            "going on in one process",
            file=sys.stderr,
        )


def process_pool(jobs: int) -> Any:
    """A process pool whose workers die with this process. A child forked while another
    thread holds a lock inherits it held: a thread blocked reading stdin (the editor
    server's reader) holds its buffer's lock, which multiprocessing's child takes at
    start-up to close stdin, so every worker hung; jax and TF run threads of their own. A
    process with more than one thread (or jax/TF loaded) spawns its workers; the command
    line has one thread and keeps the cheap fork. Workers are started by the calling
    thread, and the kernel's parent-death signal follows that thread: call it from one that
    lives as long as the pool (the main thread, or one that never ends)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    loaded = {"jax", "jaxlib", "tensorflow"} & sys.modules.keys()
    threaded = threading.active_count() > 1
    context = multiprocessing.get_context("spawn") if loaded or threaded else None
    return ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=tie_to_parent, initargs=(os.getpid(),)
    )
