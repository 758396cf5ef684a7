"""`jitlint server`, driven over stdio by a small JSON-RPC client (Content-Length framing).

Skipped without pygls and lsprotocol (`pip install 'jitlint[server]'`), except the test that
the command says how to get them.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
# Long enough for a loaded CI machine; a server that never answers fails, it does not hang.
ANSWER_TIMEOUT = 120

SOURCE = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes",))
    def total(x, axes):
        if x > 0:
            return x.sum(axis=axes)
        return -x


    total(x, axes=[0, 1])
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


class Client:
    """Just enough of an LSP client: requests, notifications, and what the server sends."""

    def __init__(self, cwd: Path, command: list[str] | None = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "jitlint", "server"],
            cwd=cwd,
            env=_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any] | None) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        message = self._wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in message, message
        return message["result"]

    def wait_for(self, method: str, where: Any = lambda params: True) -> dict[str, Any]:
        """The first notification `method` (already received or coming) matching `where`."""
        for seen in self.notifications:
            if seen["method"] == method and where(seen["params"]):
                self.notifications.remove(seen)
                return seen["params"]
        message = self._wait(lambda m: m.get("method") == method and where(m["params"]))
        self.notifications.remove(message)
        return message["params"]

    def _wait(self, wanted: Any) -> dict[str, Any]:
        while True:
            try:
                message = self.inbox.get(timeout=ANSWER_TIMEOUT)
            except queue.Empty:
                pytest.fail(f"no answer from the server; its stderr: {self.stderr()}")
            if message is None:
                pytest.fail(f"the server exited; its stderr: {self.stderr()}")
            if "method" in message and "id" in message:  # a request to the client
                self.send({"id": message["id"], "result": None})
                continue
            if "method" in message:
                self.notifications.append(message)
            if wanted(message):
                return message

    def stderr(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")[-3000:]

    def initialize(self, root: Path) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {"general": {"positionEncodings": ["utf-16"]}},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "project"}],
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        document = {"uri": uri, "languageId": "python", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def close(self) -> int:
        self.request("shutdown", None)
        self.notify("exit", None)
        assert self.process.stdin is not None
        self.process.stdin.close()  # as editors do: the server's reader may be blocked on it
        try:
            return self.process.wait(timeout=ANSWER_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server did not exit; its stderr: {self.stderr()}")


@pytest.fixture
def client(tmp_path):
    pytest.importorskip("pygls")
    pytest.importorskip("lsprotocol")
    started = Client(tmp_path)
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def _codes(diagnostics: list[dict[str, Any]]) -> list[str]:
    return [d["code"] for d in diagnostics]


def _has(code: str) -> Any:
    return lambda params: code in _codes(params["diagnostics"])


# ---- the conversation -------------------------------------------------------------------------
def test_conversation_diagnostics_code_actions_fix_all_hover(client, tmp_path):
    result = client.initialize(tmp_path)
    capabilities = result["capabilities"]
    assert capabilities["hoverProvider"]
    assert set(capabilities["codeActionProvider"]["codeActionKinds"]) == {
        "quickfix",
        "source.fixAll.jitlint",
    }
    assert result["serverInfo"]["name"] == "jitlint"

    path = tmp_path / "step.py"
    path.write_text(SOURCE)
    uri = client.open(path, SOURCE)
    published = client.wait_for("textDocument/publishDiagnostics", _has("JIT110"))
    assert published["uri"] == uri and published["version"] == 1
    by_code = {d["code"]: d for d in published["diagnostics"]}
    assert set(by_code) == {"JIT101", "JIT110"}
    jit110 = by_code["JIT110"]
    # 0-based lines, end exclusive: `[0, 1]` on line 13 (1-based), columns 15..20 (1-based).
    assert jit110["range"] == {
        "start": {"line": 12, "character": 14},
        "end": {"line": 12, "character": 20},
    }
    assert jit110["source"] == "jitlint" and jit110["severity"] == 1
    assert jit110["codeDescription"]["href"].endswith("/rules/JIT110.md")

    # A quick fix for the safe fix: preferred, with its edit.
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": jit110["range"],
            "context": {"diagnostics": [jit110]},
        },
    )
    quick = [a for a in actions if a["kind"] == "quickfix" and a["title"].startswith("jitlint (")]
    assert len(quick) == 1
    assert quick[0]["isPreferred"] is True
    assert quick[0]["title"] == "jitlint (JIT110): Replace the list with a tuple"
    assert quick[0]["edit"]["changes"][uri] == [{"range": jit110["range"], "newText": "(0, 1)"}]
    assert quick[0]["diagnostics"][0]["code"] == "JIT110"

    # The unsafe fix: offered, marked, never preferred.
    jit101 = by_code["JIT101"]
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": jit101["range"],
            "context": {"diagnostics": [jit101], "only": ["quickfix"]},
        },
    )
    [unsafe] = [a for a in actions if a["title"].startswith("jitlint (")]
    assert unsafe["title"].startswith("jitlint (JIT101): ")
    assert unsafe["title"].endswith("(unsafe fix)")
    assert not unsafe.get("isPreferred")
    assert (
        "jnp.where" in unsafe["edit"]["changes"][uri][0]["newText"]
        or "numpy.where" in (unsafe["edit"]["changes"][uri][0]["newText"])
    )

    # source.fixAll: the safe fix only (the configuration does not set unsafe-fixes).
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 14, "character": 0}}
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": everything,
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        },
    )
    [fix_all] = actions
    assert fix_all["kind"] == "source.fixAll.jitlint"
    [edit] = fix_all["edit"]["changes"][uri]
    assert edit["newText"] == SOURCE.replace("axes=[0, 1]", "axes=(0, 1)")

    # Hover over the finding: the rule's page.
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": jit101["range"]["start"]},
    )
    assert hover["contents"]["kind"] == "markdown"
    assert hover["contents"]["value"].startswith("# JIT101")
    assert "## Why is this bad" in hover["contents"]["value"]

    # A change that removes the hazards clears them.
    fixed = SOURCE.replace("axes=[0, 1]", "axes=(0, 1)").replace("if x > 0:", "if x.ndim:")
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": fixed}],
        },
    )
    cleared = client.wait_for(
        "textDocument/publishDiagnostics", lambda params: params.get("version") == 2
    )
    assert cleared["diagnostics"] == []
    assert client.close() == 0


def test_hover_on_a_code_in_a_suppression_comment(client, tmp_path):
    client.initialize(tmp_path)
    text = "x = 1  # noqa: JIT113\n"
    uri = client.open(tmp_path / "mod.py", text)
    client.wait_for("textDocument/publishDiagnostics")
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 17}},
    )
    assert hover["contents"]["value"].startswith("# JIT113")
    nothing = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}},
    )
    assert nothing is None
    assert client.close() == 0


def test_incremental_change_and_save(client, tmp_path):
    client.initialize(tmp_path)
    path = tmp_path / "step.py"
    clean = SOURCE.replace("axes=[0, 1]", "axes=(0, 1)").replace("if x > 0:", "if x.ndim:")
    path.write_text(clean)
    uri = client.open(path, clean)
    assert client.wait_for("textDocument/publishDiagnostics")["diagnostics"] == []
    # Type `[0, 1]` over `(0, 1)` on line 13: an incremental change.
    change = {
        "range": {"start": {"line": 12, "character": 14}, "end": {"line": 12, "character": 20}},
        "text": "[0, 1]",
    }
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]},
    )
    changed = client.wait_for(
        "textDocument/publishDiagnostics", lambda params: params.get("version") == 2
    )
    assert _codes(changed["diagnostics"]) == ["JIT110"]
    path.write_text(clean.replace("axes=(0, 1)", "axes=[0, 1]"))
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    saved = client.wait_for("textDocument/publishDiagnostics")
    assert _codes(saved["diagnostics"]) == ["JIT110"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    closed = client.wait_for("textDocument/publishDiagnostics")
    assert closed["diagnostics"] == []
    assert client.close() == 0


def test_columns_are_utf16_code_units(client, tmp_path):
    client.initialize(tmp_path)
    # U+1F600 is one code point but two UTF-16 code units.
    text = SOURCE.replace("total(x, axes=[0, 1])", 's = "\U0001f600"; total(x, axes=[0, 1])')
    uri = client.open(tmp_path / "emoji.py", text)
    published = client.wait_for("textDocument/publishDiagnostics", _has("JIT110"))
    [jit110] = [d for d in published["diagnostics"] if d["code"] == "JIT110"]
    line = text.splitlines()[12]
    code_points = line.index("[")
    assert jit110["range"]["start"] == {"line": 12, "character": code_points + 1}
    assert uri


# ---- what the project pass knows --------------------------------------------------------------
def test_calls_from_other_files_on_disk_are_followed(client, tmp_path):
    helper = "def loss(x):\n    if x > 0:\n        return x\n    return -x\n"
    (tmp_path / "helpers.py").write_text(helper)
    (tmp_path / "train.py").write_text(
        "import jax\nfrom helpers import loss\n\nstep = jax.jit(loss)\n"
    )
    client.initialize(tmp_path)
    client.open(tmp_path / "helpers.py", helper)
    # The file alone has no hazard (nothing in it is traced); train.py on disk traces `loss`.
    published = client.wait_for("textDocument/publishDiagnostics", _has("JIT101"))
    [finding] = published["diagnostics"]
    assert "train.py:4" in finding["message"]
    assert finding["range"]["start"]["line"] == 1
    assert client.close() == 0


def test_configuration_nearest_the_file_applies(client, tmp_path):
    config = '[tool.jitlint]\nignore = ["JIT110"]\nextend-exclude = ["vendor"]\n'
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "vendor").mkdir()
    client.initialize(tmp_path)
    client.open(tmp_path / "step.py", SOURCE)
    published = client.wait_for("textDocument/publishDiagnostics")
    assert _codes(published["diagnostics"]) == ["JIT101"]
    # An excluded file is not linted, as `jitlint .` skips it.
    uri = client.open(tmp_path / "vendor" / "step.py", SOURCE)
    excluded = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    assert excluded["diagnostics"] == []
    assert client.close() == 0


def test_a_bad_configuration_is_shown_once(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nselect = ["NOPE"]\n')
    client.initialize(tmp_path)
    client.open(tmp_path / "step.py", SOURCE)
    message = client.wait_for("window/showMessage")
    assert message["type"] == 1 and "NOPE" in message["message"]
    assert client.wait_for("textDocument/publishDiagnostics")["diagnostics"] == []
    assert client.close() == 0


# ---- exit ------------------------------------------------------------------------------------
# The project pass never ends here: a thread still linting must not keep the server alive once
# the editor has said `exit` (pygls joins its worker threads; a large workspace takes minutes).
STUCK_PROJECT_PASS = (
    "import sys, threading\n"
    "import jitlint.engine.runner as runner\n"
    "def never_ends(*args, **kwargs):\n"
    "    print('project pass started', file=sys.stderr, flush=True)\n"
    "    threading.Event().wait()\n"
    "runner.project_inbound = never_ends\n"
    "from jitlint.frontends.lsp.server import main\n"
    "sys.exit(main([]))\n"
)


@pytest.mark.parametrize("shutdown_first", [True, False])
def test_exit_ends_the_server_while_a_project_pass_is_running(tmp_path, shutdown_first):
    pytest.importorskip("pygls")
    pytest.importorskip("lsprotocol")
    (tmp_path / "other.py").write_text("import step\n")
    client = Client(tmp_path, [sys.executable, "-c", STUCK_PROJECT_PASS])
    try:
        client.initialize(tmp_path)
        (tmp_path / "step.py").write_text(SOURCE)
        client.open(tmp_path / "step.py", SOURCE)
        # The buffer's own findings come before the project pass starts.
        assert _has("JIT110")(client.wait_for("textDocument/publishDiagnostics"))
        assert client.process.stderr is not None
        for line in client.process.stderr:  # until the pass is under way (EOF: it never was)
            if line.startswith(b"project pass started"):
                break
        else:
            pytest.fail("the project pass did not start")
        if shutdown_first:
            client.request("shutdown", None)
        client.notify("exit", None)
        assert client.process.stdin is not None
        client.process.stdin.close()
        try:
            status = client.process.wait(timeout=ANSWER_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail("the server waited for the project pass after `exit`")
        # The LSP spec: 0 after a shutdown request, 1 without one.
        assert status == (0 if shutdown_first else 1)
    finally:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


# ---- without the extra ------------------------------------------------------------------------
def test_without_pygls_the_command_says_how_to_install_it(tmp_path):
    hide = "import sys; sys.modules['pygls'] = sys.modules['lsprotocol'] = None; "
    run = "from jitlint.frontends.cli import main; sys.exit(main(['server']))"
    proc = subprocess.run(
        [sys.executable, "-c", hide + run],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=ANSWER_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 2
    assert "pip install 'jitlint[server]'" in proc.stderr
    assert proc.stdout == ""


def test_checking_files_never_imports_the_server_libraries(tmp_path):
    (tmp_path / "step.py").write_text(SOURCE)
    code = (
        "import sys; from jitlint.frontends.cli import main; status = main(['--no-cache', "
        "'step.py']); print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pygls', 'lsprotocol', 'cattrs') or m.startswith('jitlint.frontends.lsp.server')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=ANSWER_TIMEOUT,
        check=False,
    )
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stderr
