"""How the editor server runs, without any LSP library: which thread does what, and the
JSON-RPC rules every message passes before pygls sees it.

- The main thread lints buffers (`Scheduler`): the CPU-time and memory budgets of
  system/budget.py use a timer signal, which only the main thread receives. A change is
  linted `DEBOUNCE` seconds after the last one; a buffer that changes while it is being
  linted has that lint dropped at the budget's next sample; only its latest version is
  linted. Requests that need a lint or a fix (code actions, a hover over a stale buffer)
  are queued there too, ahead of lints, so the message loop never waits for one.
- Project passes run one at a time in a thread of their own (`Background`), which lives
  as long as the server: their worker processes are tied to the thread that starts them.
- `Gate` answers what must not reach the handlers: requests before `initialize`
  (-32002), malformed requests (-32600), any request after `shutdown` (-32600); `exit`
  ends the process at once.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any

DEBOUNCE = 0.05  # seconds after a change before its buffer is linted

SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class Scheduler:
    """Work for the main thread: queued calls first, then due buffer lints."""

    def __init__(self, lint: Callable[[str], None]) -> None:
        self._lint = lint
        self._cond = threading.Condition()
        self._due: dict[str, float] = {}  # uri -> when to lint it
        self._calls: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._linting: str | None = None
        self._superseded = threading.Event()

    def lint_later(self, uri: str, delay: float = DEBOUNCE) -> None:
        with self._cond:
            self._due[uri] = time.monotonic() + delay
            if self._linting == uri:
                self._superseded.set()
            self._cond.notify()

    def forget(self, uri: str) -> None:
        with self._cond:
            self._due.pop(uri, None)
            if self._linting == uri:
                self._superseded.set()

    def superseded(self) -> bool:
        """Whether the buffer being linted changed (or closed) since its lint began."""
        return self._superseded.is_set()

    def call(self, work: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        with self._cond:
            self._calls.append((work, future))
            self._cond.notify()
        return future

    def run_forever(self) -> None:
        while True:
            with self._cond:
                job = self._next_job()
            if isinstance(job, tuple):
                work, future = job
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(work())
                    except BaseException as exc:  # the request answers with the error
                        future.set_exception(exc)
                continue
            try:
                self._lint(job)
            finally:
                with self._cond:
                    self._linting = None

    def _next_job(self) -> tuple[Callable[[], Any], Future[Any]] | str:
        while True:
            if self._calls:
                return self._calls.popleft()
            now = time.monotonic()
            if self._due:
                uri, when = min(self._due.items(), key=lambda item: item[1])
                if when <= now:
                    del self._due[uri]
                    self._linting = uri
                    self._superseded.clear()
                    return uri
                self._cond.wait(when - now)
            else:
                self._cond.wait()


class Background:
    """One thread that runs submitted work in order; work submitted again under a key that
    is still waiting is run once."""

    def __init__(self, name: str, report: Callable[[BaseException], None]) -> None:
        self._report = report
        self._cond = threading.Condition()
        self._waiting: dict[Hashable, Callable[[], None]] = {}
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(self, key: Hashable, work: Callable[[], None]) -> None:
        with self._cond:
            self._waiting[key] = work
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._waiting:
                    self._cond.wait()
                key = next(iter(self._waiting))
                work = self._waiting.pop(key)
            try:
                work()
            except Exception as exc:
                self._report(exc)


class Gate:
    """The JSON-RPC and LSP life-cycle rules, applied to each decoded message in order."""

    def __init__(
        self,
        structure: Callable[[dict[str, Any]], Any],
        dispatch: Callable[[Any], None],
        reply_error: Callable[[int | str, int, str], None],
        log: Callable[[str], None],
        end: Callable[[int], None],
    ) -> None:
        self.structure = structure
        self.dispatch = dispatch
        self.reply_error = reply_error
        self.log = log
        self.end = end
        self.initialized = False
        self.shut_down = False

    def handle(self, message: Any) -> None:
        if not isinstance(message, dict):
            self.log(f"ignored a message that is not a JSON object: {str(message)[:200]}")
            return
        has_id = "id" in message
        ident = message.get("id")
        method = message.get("method")
        if has_id and not (isinstance(ident, (int, str)) and not isinstance(ident, bool)):
            self.log(f"ignored a message whose id is not a number or string: {ident!r}")
            return
        if message.get("jsonrpc") != "2.0" or (method is not None and not isinstance(method, str)):
            if has_id and method is not None:
                self.reply_error(ident, INVALID_REQUEST, "not a JSON-RPC 2.0 request")
            else:
                self.log("ignored a message that is not JSON-RPC 2.0")
            return
        if method is None:  # a response to a request of ours
            if has_id and not self.shut_down:
                self._forward(message)
            return
        if method == "exit":
            self.end(0 if self.shut_down else 1)
            return
        if not has_id:  # a notification
            if self.initialized and not self.shut_down:
                self._forward(message)
            else:
                state = "after shutdown" if self.shut_down else "before initialize"
                self.log(f"ignored the notification {method!r} {state}")
            return
        if self.shut_down:
            self.reply_error(ident, INVALID_REQUEST, f"{method}: the server is shutting down")
        elif method == "initialize":
            if self.initialized:
                self.reply_error(ident, INVALID_REQUEST, "initialize: already initialized")
            elif self._forward(message):
                self.initialized = True
        elif not self.initialized:
            self.reply_error(ident, SERVER_NOT_INITIALIZED, f"{method}: not initialized yet")
        elif self._forward(message) and method == "shutdown":
            self.shut_down = True

    def _forward(self, message: dict[str, Any]) -> bool:
        """Hand the message on, typed; False (answered or logged) if its params are not
        what its method takes."""
        try:
            typed = self.structure(message)
        except ValueError as exc:
            method = message.get("method")
            if "id" in message and method is not None:
                self.reply_error(message["id"], INVALID_PARAMS, f"{method}: invalid params: {exc}")
            else:
                self.log(f"ignored {method or 'a response'} with invalid params: {exc}")
            return False
        self.dispatch(typed)
        return True
