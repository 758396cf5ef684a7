"""#31: the editor server in a real workspace, driven over stdio by the client of
tests/test_server.py, every wait bounded: a workspace of 30 files (its project pass uses
worker processes), rapid edits, a 6 MB buffer, broken frames, JSON-RPC errors, a
configuration changed on disk, and `kill -9` of the client and of the server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from test_server import ANSWER_TIMEOUT, SOURCE, Client, _env

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")

_START = {"line": 0, "character": 0}
HELPER = "def loss(x):\n    if x > 0:\n        return x\n    return -x\n"


def _workspace(root: Path, count: int = 30) -> None:
    """`count` files: helpers.py, whose `loss` every other file traces (a cross-file JIT101)."""
    (root / "helpers.py").write_text(HELPER)
    for index in range(count - 1):
        (root / f"train{index}.py").write_text(
            f"import jax\nfrom helpers import loss\n\nstep{index} = jax.jit(loss)\n"
        )


def _jax_file(functions: int) -> str:
    """About 10 lines per function, each with a safe (JIT110) and an unsafe (JIT101) fix."""
    parts = ["from functools import partial\n\nimport jax\n"]
    for index in range(functions):
        parts.append(
            textwrap.dedent(
                f"""

                @partial(jax.jit, static_argnames=("axes",))
                def total{index}(x, axes):
                    if x > 0:
                        return x.sum(axis=axes)
                    return -x


                total{index}(x, axes=[0, {index}])
                """
            )
        )
    return "".join(parts)


class Marked(Client):
    """A client whose server (and every process it starts) carries a unique variable in
    its environment, so that the processes left behind can be found."""

    def __init__(self, cwd: Path, command: list[str] | None = None) -> None:
        self.mark = uuid.uuid4().hex
        self.replies: list[dict[str, Any]] = []
        os.environ["JITLINT_TEST_MARK"] = self.mark
        try:
            super().__init__(cwd, command)
        finally:
            del os.environ["JITLINT_TEST_MARK"]

    def initialize(self, root: Path) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {"general": {"positionEncodings": ["utf-16"]}},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "project"}],
                "trace": "messages",  # a `$/logTrace` for each lint
            },
        )
        self.notify("initialized", {})
        return result

    def _wait(self, wanted: Any) -> dict[str, Any]:
        def noted(message: dict[str, Any]) -> bool:
            if "id" in message and "method" not in message:
                self.replies.append(message)
            return wanted(message)

        return super()._wait(noted)

    def lints(self, uri: str) -> list[str]:
        return [
            n["params"]["message"]
            for n in self.notifications
            if n["method"] == "$/logTrace" and n["params"]["message"].startswith(f"linted {uri} ")
        ]

    def raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def call(self, method: str, params: Any, **extra: Any) -> dict[str, Any]:
        """The whole reply (result or error) to a request."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params, **extra})
        ident = self.next_id
        return self._wait(lambda m: m.get("id") == ident and "method" not in m)


def _marked_processes(mark: str) -> list[int]:
    found = []
    needle = f"JITLINT_TEST_MARK={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _none_left(mark: str, timeout: float = 30) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := _marked_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


@pytest.fixture
def marked(tmp_path):
    started: list[Marked] = []

    def start(command: list[str] | None = None) -> Marked:
        client = Marked(tmp_path, command)
        started.append(client)
        return client

    yield start
    for client in started:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()
        for pid in _marked_processes(client.mark):
            os.kill(pid, signal.SIGKILL)


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


# ---- 1: a workspace of 30 files -------------------------------------------------------------
def test_a_workspace_of_30_files_gets_cross_file_findings_and_answers(marked, tmp_path):
    _workspace(tmp_path)
    client = marked()
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "helpers.py", HELPER)
    # The project pass over 30 files runs in worker processes (16 or more files).
    published = client.wait_for(
        "textDocument/publishDiagnostics",
        lambda p: "JIT101" in [d["code"] for d in p["diagnostics"]],
    )
    assert published["uri"] == uri
    assert "train" in published["diagnostics"][0]["message"]
    for _ in range(3):
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 8}},
    )
    assert hover["contents"]["value"].startswith("# JIT101")
    assert client.close() == 0
    assert _none_left(client.mark) == []


_KILLED_CLIENT = """
import subprocess, sys, json, time
from pathlib import Path
root = Path(sys.argv[1])
server = subprocess.Popen([sys.executable, "-m", "jitlint", "server"], cwd=root,
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
def send(message):
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    server.stdin.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
    server.stdin.flush()
send({"id": 1, "method": "initialize", "params": {"processId": None,
      "rootUri": root.as_uri(), "capabilities": {}}})
send({"method": "initialized", "params": {}})
text = (root / "helpers.py").read_text()
send({"method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": (root / "helpers.py").as_uri(), "languageId": "python", "version": 1,
      "text": text}}})
print(server.pid, flush=True)
time.sleep(600)
"""


def _children_started(mark: str, at_least: int, timeout: float = ANSWER_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while len(_marked_processes(mark)) < at_least:
        if time.monotonic() > deadline:
            pytest.fail(f"only {_marked_processes(mark)} started")
        time.sleep(0.1)


def test_kill_9_of_the_client_leaves_no_process_behind(tmp_path):
    _workspace(tmp_path)
    mark = uuid.uuid4().hex
    client = subprocess.Popen(
        [sys.executable, "-c", _KILLED_CLIENT, str(tmp_path)],
        cwd=tmp_path,
        env={**_env(), "JITLINT_TEST_MARK": mark},
        stdout=subprocess.PIPE,
    )
    try:
        assert client.stdout is not None
        server_pid = int(client.stdout.readline())
        # The client, the server and at least one worker of the project pass.
        _children_started(mark, 3)
        client.kill()
        client.wait()
        left = _none_left(mark)
        assert left == [], f"left running: {left} (the server was {server_pid})"
    finally:
        client.kill()
        client.wait()
        for pid in _marked_processes(mark):
            os.kill(pid, signal.SIGKILL)


def test_kill_9_of_the_server_leaves_no_worker_behind(marked, tmp_path):
    _workspace(tmp_path)
    client = marked()
    client.initialize(tmp_path)
    client.open(tmp_path / "helpers.py", HELPER)
    _children_started(client.mark, 2)  # the server and a worker
    client.process.kill()
    client.process.wait()
    assert _none_left(client.mark) == []


def test_workers_start_while_another_thread_reads_stdin(tmp_path):
    """The cause of the deadlock, without the server: a pool started while a thread is
    blocked reading stdin (its buffer's lock held)."""
    code = (
        "import sys, threading, time\n"
        "from jitlint.system.workers import Workers\n"
        "threading.Thread(target=sys.stdin.buffer.read, daemon=True).start()\n"
        "time.sleep(0.2)\n"
        "with Workers(2, min_batch=1) as workers:\n"
        "    print(sum(workers.map(abs, [-1, -2, -3, -4])), flush=True)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # stdin stays open (as an editor keeps it): the reading thread holds its lock.
        process.wait(timeout=ANSWER_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail("the pool's workers hung at start-up")
    finally:
        assert process.stdin is not None
        process.stdin.close()
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read().decode().strip() == "10", process.stderr.read().decode()


# ---- 2: limits -----------------------------------------------------------------------------------
def _peak_memory(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_a_6_mb_buffer_is_jit001_and_the_server_stays_small(marked, tmp_path):
    client = marked()
    client.initialize(tmp_path)
    text = "x = 1\n" * (6 * 1024 * 1024 // 6)
    uri = client.open(tmp_path / "big.py", text)
    published = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    [finding] = published["diagnostics"]
    assert finding["code"] == "JIT001"
    assert "over the 1.0 MiB limit" in finding["message"]
    hover = client.call(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    assert "error" not in hover
    assert _peak_memory(client.process.pid) < 1024 * 1024 * 1024
    assert client.close() == 0


def test_the_buffer_budget_of_the_configuration_applies(marked, tmp_path):
    (tmp_path / "jitlint.toml").write_text("max-file-seconds = 0.05\n")
    client = marked()
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "step.py", _jax_file(150))
    published = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    [finding] = published["diagnostics"]
    assert finding["code"] == "JIT001" and "max-file-seconds" in finding["message"]
    assert client.close() == 0


# ---- 3: cancellation -----------------------------------------------------------------------------
def test_rapid_edits_lint_the_latest_version(marked, tmp_path):
    client = marked()
    client.initialize(tmp_path)
    text = _jax_file(200)
    uri = client.open(tmp_path / "step.py", text)
    for version in range(2, 52):
        text = text.replace(f"axes=[0, {version - 2}]", f"axes=(0, {version - 2})")
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
    last = client.wait_for("textDocument/publishDiagnostics", lambda p: p.get("version") == 51)
    codes = [d["code"] for d in last["diagnostics"]]
    assert codes.count("JIT110") == 150 and codes.count("JIT101") == 200
    # Superseded versions are dropped, not linted one after another.
    linted = client.lints(uri)
    assert 1 <= len(linted) < 10, linted
    assert linted[-1].startswith(f"linted {uri} version 51:")
    assert client.close() == 0


def test_fix_all_runs_off_the_message_loop(marked, tmp_path):
    client = marked()
    client.initialize(tmp_path)
    small = client.open(tmp_path / "small.py", SOURCE)
    client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == small)
    big_text = _jax_file(200)
    big = client.open(tmp_path / "big.py", big_text)
    client.next_id += 1
    fix_all_id = client.next_id
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 3000, "character": 0}}
    client.send(
        {
            "id": fix_all_id,
            "method": "textDocument/codeAction",
            "params": {
                "textDocument": {"uri": big},
                "range": everything,
                "context": {"diagnostics": [], "only": ["source.fixAll"]},
            },
        }
    )
    hover = client.call(
        "textDocument/hover",
        {"textDocument": {"uri": small}, "position": {"line": 12, "character": 16}},
    )
    # The hover over a buffer already linted is answered before the long fix-all ends.
    assert hover["result"]["contents"]["value"].startswith("# JIT110")
    assert fix_all_id not in [m["id"] for m in client.replies]
    fix_all = client._wait(lambda m: m.get("id") == fix_all_id and "method" not in m)
    [action] = fix_all["result"]
    [edit] = action["edit"]["changes"][big]
    assert "axes=[0" not in edit["newText"]
    assert client.close() == 0


def test_shutdown_is_answered_while_a_long_lint_runs(marked, tmp_path):
    client = marked()
    client.initialize(tmp_path)
    client.open(tmp_path / "big.py", _jax_file(300))
    reply = client.call("shutdown", None)
    assert reply["result"] is None
    published = [n for n in client.notifications if n["method"].endswith("Diagnostics")]
    assert published == []  # answered before the lint of the buffer ended
    client.notify("exit", None)
    assert client.process.wait(timeout=ANSWER_TIMEOUT) == 0


# ---- 4: framing and protocol ---------------------------------------------------------------------
def _frame(message: dict[str, Any], length: int | None = None) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


@pytest.mark.parametrize(
    "broken",
    [
        b"Content-Type: application/json\r\n\r\n{}",  # no Content-Length
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Length: 999999999999999\r\n\r\n{}",  # huge: no MemoryError
        b'Content-Length: 5\r\n\r\n{"jsonrpc": "2.0"}',  # too short
        b"Content-Length: 4\r\n\r\nnope",  # not JSON
        b"garbage without any header\r\n\r\n",
    ],
)
def test_a_broken_frame_is_logged_and_the_stream_resyncs(marked, tmp_path, broken):
    client = marked()
    client.initialize(tmp_path)
    client.raw(broken)
    hover = client.call(
        "textDocument/hover",
        {
            "textDocument": {"uri": (tmp_path / "x.py").as_uri()},
            "position": {"line": 0, "character": 0},
        },
    )
    assert hover["result"] is None  # answered: the stream is in step again
    logged = client.wait_for("window/logMessage")
    assert "jitlint:" in logged["message"]
    assert not [n for n in client.notifications if n["method"] == "window/showMessage"]
    assert client.close() == 0


def test_a_content_length_that_is_too_long_is_recovered(marked, tmp_path):
    client = marked()
    client.initialize(tmp_path)
    # The client waits for the answer; the server waits for bytes that never come.
    request = {"id": 99, "method": "shutdown", "params": None}
    client.raw(_frame(request, length=len(json.dumps({"jsonrpc": "2.0", **request})) + 40))
    reply = client._wait(lambda m: m.get("id") == 99)
    assert reply["result"] is None
    client.notify("exit", None)
    assert client.process.wait(timeout=ANSWER_TIMEOUT) == 0


def test_every_request_gets_one_reply_with_the_right_code(marked, tmp_path):
    client = marked()
    position = {
        "textDocument": {"uri": (tmp_path / "x.py").as_uri()},
        "position": {"line": 0, "character": 0},
    }
    early = client.call("textDocument/hover", position)
    assert early["error"]["code"] == -32002
    client.initialize(tmp_path)
    assert client.call("textDocument/hover", {"nonsense": 1})["error"]["code"] == -32602
    assert client.call("jitlint/unknown", {})["error"]["code"] == -32601
    client.next_id += 1
    client.send({"id": client.next_id, "method": 7, "params": {}})  # a method that is no string
    ident = client.next_id
    assert client._wait(lambda m: m.get("id") == ident)["error"]["code"] == -32600
    assert client.call("initialize", {"capabilities": {}})["error"]["code"] == -32600
    assert client.call("shutdown", None)["result"] is None
    assert client.call("shutdown", None)["error"]["code"] == -32600
    assert client.call("textDocument/hover", position)["error"]["code"] == -32600
    client.notify("exit", None)
    assert client.process.wait(timeout=ANSWER_TIMEOUT) == 0
    # Nothing more: every request had exactly one reply.
    while (message := client.inbox.get(timeout=ANSWER_TIMEOUT)) is not None:
        assert "id" not in message or "method" in message, message
    assert not [n for n in client.notifications if n["method"] == "window/showMessage"]


def test_the_end_of_stdin_ends_the_server(marked, tmp_path):
    _workspace(tmp_path)
    client = marked()
    client.initialize(tmp_path)
    client.open(tmp_path / "step.py", _jax_file(300))
    assert client.process.stdin is not None
    client.process.stdin.close()
    assert client.process.wait(timeout=ANSWER_TIMEOUT) == 1  # no shutdown came first
    assert _none_left(client.mark) == []


# ---- 5: configuration changed on disk -----------------------------------------------------------
def test_a_configuration_changed_on_disk_is_read_again(marked, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT101"]\n')
    client = marked()
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "step.py", SOURCE)
    first = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    assert [d["code"] for d in first["diagnostics"]] == ["JIT110"]
    # As a `git checkout` does: the file is replaced, the editor says nothing.
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT110"]\n')
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": SOURCE}]},
    )
    second = client.wait_for("textDocument/publishDiagnostics", lambda p: p.get("version") == 2)
    assert [d["code"] for d in second["diagnostics"]] == ["JIT101"]
    assert client.close() == 0


def test_the_server_asks_to_watch_configuration_files(marked, tmp_path):
    client = marked()
    client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": tmp_path.as_uri(),
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}},
        },
    )
    client.notify("initialized", {})
    while True:
        message = client.inbox.get(timeout=ANSWER_TIMEOUT)
        assert message is not None, client.stderr()
        if message.get("method") == "client/registerCapability":
            break
    client.send({"id": message["id"], "result": None})
    [registration] = message["params"]["registrations"]
    assert registration["method"] == "workspace/didChangeWatchedFiles"
    patterns = {w["globPattern"] for w in registration["registerOptions"]["watchers"]}
    assert patterns == {"**/pyproject.toml", "**/jitlint.toml"}
    # Told of a change, the server reads the configuration again.
    uri = client.open(tmp_path / "step.py", SOURCE)
    first = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    assert sorted(d["code"] for d in first["diagnostics"]) == ["JIT101", "JIT110"]
    (tmp_path / "jitlint.toml").write_text('ignore = ["JIT110"]\n')
    config = (tmp_path / "jitlint.toml").as_uri()
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": config, "type": 1}]})
    second = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    assert [d["code"] for d in second["diagnostics"]] == ["JIT101"]
    assert client.close() == 0
