"""The editor server's frame reader and JSON-RPC gate, without a server process: every
broken frame is reported and the next good one read; every request is answered once."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import pytest

from jitlint.frontends.lsp import framing
from jitlint.frontends.lsp.framing import FrameReader
from jitlint.frontends.lsp.serving import Gate, Scheduler


def _frame(message: dict[str, Any], length: int | None = None) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def _read_all(data: bytes) -> tuple[list, list]:
    """Every message `FrameReader` decodes from `data` (written, then the pipe closed)."""
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write_end, data), os.close(write_end)))
    writer.start()
    reports: list[str] = []
    reader = FrameReader(read_end, reports.append)
    messages = []
    while (message := reader.next()) is not None:
        messages.append(message)
    writer.join()
    os.close(read_end)
    return messages, reports


GOOD = {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}


@pytest.mark.parametrize(
    ("broken", "reported"),
    [
        (b"Content-Type: x\r\n\r\n{}", "no Content-Length"),
        (b"Content-Length: -3\r\n\r\n{}", "not a number"),
        (b"Content-Length: \xd9\xa3\r\n\r\n{}", "not a number"),  # an Arabic-Indic 3
        (b"Content-Length: 99999999999999999999\r\n\r\n", "over the"),
        (b'Content-Length: 3\r\n\r\n{"a": 1}', "not valid JSON"),
        (b"Content-Length: 4\r\n\r\nnope", "not valid JSON"),
        (b"\x00\xff garbage\r\n\r\n", "no Content-Length"),
    ],
)
def test_a_broken_frame_is_reported_and_the_next_one_read(broken, reported):
    messages, reports = _read_all(broken + _frame(GOOD))
    assert messages == [GOOD]
    assert any(reported in r for r in reports), reports


def test_a_length_too_long_gives_back_the_next_frame():
    second = {"jsonrpc": "2.0", "method": "exit"}
    body = json.dumps(GOOD).encode()
    data = _frame(GOOD, length=len(body) + 10) + _frame(second)
    messages, reports = _read_all(data)
    assert messages[0] == GOOD
    assert reports and "Content-Length was" in reports[0]


@pytest.mark.skipif(os.name == "nt", reason="select() cannot wait on a pipe on Windows")
def test_a_length_too_long_at_the_end_is_recovered_after_a_stall(monkeypatch):
    monkeypatch.setattr(framing, "STALL", 0.1)
    read_end, write_end = os.pipe()
    body = json.dumps(GOOD).encode()
    os.write(write_end, b"Content-Length: %d\r\n\r\n" % (len(body) + 50) + body)
    reports: list[str] = []
    try:
        # The writer keeps the pipe open, as a client waiting for the answer does.
        assert FrameReader(read_end, reports.append).next() == GOOD
    finally:
        os.close(write_end)
        os.close(read_end)
    assert "Content-Length was" in reports[0]


def test_a_huge_length_allocates_nothing():
    data = b"Content-Length: %d\r\n\r\n" % (1 << 60) + _frame(GOOD)
    messages, reports = _read_all(data)
    assert messages == [GOOD] and "over the" in reports[0]


def test_the_end_inside_a_frame_is_reported():
    messages, reports = _read_all(b'Content-Length: 10\r\n\r\n{"a"')
    assert messages == [] and "ended inside" in reports[-1]


# ---- the gate ------------------------------------------------------------------------------------
class Recorder:
    def __init__(self) -> None:
        self.dispatched: list[Any] = []
        self.errors: list[tuple[Any, int]] = []
        self.logged: list[str] = []
        self.ended: list[int] = []

    def gate(self) -> Gate:
        def structure(message: dict[str, Any]) -> Any:
            if message.get("params") == "bad":
                raise ValueError("bad params")
            return message

        return Gate(
            structure,
            self.dispatched.append,
            lambda ident, code, _: self.errors.append((ident, code)),
            self.logged.append,
            self.ended.append,
        )


def _request(ident: Any, method: Any, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def test_the_gate_answers_each_request_once_with_the_right_code():
    recorder = Recorder()
    gate = recorder.gate()
    gate.handle(_request(1, "textDocument/hover"))
    gate.handle({"jsonrpc": "2.0", "method": "textDocument/didOpen"})  # before initialize
    gate.handle(_request(2, "initialize", "bad"))
    gate.handle(_request(3, "initialize"))
    gate.handle(_request(4, "initialize"))
    gate.handle(_request(5, "textDocument/hover", "bad"))
    gate.handle({"id": 6, "method": "textDocument/hover"})  # no jsonrpc
    gate.handle(_request(7, 42))
    gate.handle(_request(True, "x"))  # an id that is neither number nor string
    gate.handle([1, 2])
    gate.handle(_request(8, "textDocument/hover"))
    gate.handle(_request(9, "shutdown"))
    gate.handle(_request(10, "shutdown"))
    gate.handle(_request(11, "textDocument/hover"))
    gate.handle({"jsonrpc": "2.0", "method": "textDocument/didChange"})
    gate.handle({"jsonrpc": "2.0", "method": "exit"})
    assert recorder.errors == [
        (1, -32002),
        (2, -32602),
        (4, -32600),
        (5, -32602),
        (6, -32600),
        (7, -32600),
        (10, -32600),
        (11, -32600),
    ]
    assert [m["id"] for m in recorder.dispatched] == [3, 8, 9]
    assert recorder.ended == [0]
    assert len(recorder.logged) == 4  # two notifications, the bad id, the array


def test_exit_without_shutdown_ends_with_1():
    recorder = Recorder()
    recorder.gate().handle({"jsonrpc": "2.0", "method": "exit"})
    assert recorder.ended == [1]


# ---- the scheduler -------------------------------------------------------------------------------
def test_the_scheduler_lints_the_latest_request_once_and_runs_calls_first():
    linted: list[str] = []
    done = threading.Event()
    scheduler = Scheduler(lambda uri: (linted.append(uri), done.set() if uri == "b" else None))
    for _ in range(20):
        scheduler.lint_later("a", 0.05)
    scheduler.lint_later("b", 0.2)
    result = scheduler.call(lambda: list(linted))
    threading.Thread(target=scheduler.run_forever, daemon=True).start()
    assert result.result(timeout=60) == []  # the call ran before any lint
    assert done.wait(timeout=60)
    assert linted == ["a", "b"]


def test_a_lint_whose_buffer_changed_is_cancelled_at_the_next_sample():
    from jitlint.system.budget import Cancelled, budget, can_enforce

    if not can_enforce():
        pytest.skip("no interval timer here")
    changed = threading.Event()
    with pytest.raises(Cancelled), budget(None, None, cancelled=changed.is_set):
        for step in range(10**9):  # CPU work, as a lint is
            if step == 1000:
                changed.set()
