"""#32 item 5, over the LSP client of tests/test_server.py: each finding links its rule
page, hover shows the rule, "Disable JITxxx for this line" adds or extends `# noqa`, and the
editor's settings (`select`, `ignore`, `unsafe-fixes`, `configurationPreference`) apply."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_server import SOURCE, Client

from jitlint.diagnostics import rule_url
from jitlint.rules import all_rules

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")


def _start(root: Path, options: dict[str, Any] | None = None) -> Client:
    client = Client(root)
    client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "capabilities": {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": "project"}],
            "initializationOptions": options,
        },
    )
    client.notify("initialized", {})
    return client


@pytest.fixture
def started(tmp_path):
    clients: list[Client] = []

    def start(options: dict[str, Any] | None = None) -> Client:
        clients.append(_start(tmp_path, options))
        return clients[-1]

    yield start
    for client in clients:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


def _codes(client: Client, uri: str, version: int | None = None) -> list[str]:
    published = client.wait_for(
        "textDocument/publishDiagnostics",
        lambda p: p["uri"] == uri and (version is None or p.get("version") == version),
    )
    return sorted(d["code"] for d in published["diagnostics"])


def _change(client: Client, uri: str, version: int, text: str) -> None:
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )


def test_every_diagnostic_links_its_rule_page(started, tmp_path):
    client = started()
    uri = client.open(tmp_path / "step.py", SOURCE)
    published = client.wait_for("textDocument/publishDiagnostics")
    assert published["diagnostics"]
    for d in published["diagnostics"]:
        assert d["codeDescription"]["href"] == rule_url(d["code"])
        assert d["codeDescription"]["href"].endswith(f"/rules/{d['code']}.md")
    # The page exists in the repository under that name.
    assert (Path(__file__).parents[1] / "rules" / "JIT110.md").is_file()
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 12, "character": 16}},
    )
    assert all_rules()["JIT110"].summary in hover["contents"]["value"]
    assert client.close() == 0


def _actions(client: Client, uri: str, diagnostic: dict[str, Any]) -> list[dict[str, Any]]:
    return client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": diagnostic["range"],
            "context": {"diagnostics": [diagnostic], "only": ["quickfix"]},
        },
    )


def _apply_line_edit(text: str, edit: dict[str, Any]) -> str:
    lines = text.splitlines(keepends=True)
    start, end = edit["range"]["start"], edit["range"]["end"]
    assert start["line"] == end["line"]
    line = lines[start["line"]]
    lines[start["line"]] = line[: start["character"]] + edit["newText"] + line[end["character"] :]
    return "".join(lines)


def test_disable_for_this_line_adds_then_extends_the_noqa(started, tmp_path):
    client = started()
    uri = client.open(tmp_path / "step.py", SOURCE)
    published = client.wait_for("textDocument/publishDiagnostics")
    jit110 = next(d for d in published["diagnostics"] if d["code"] == "JIT110")
    [disable] = [a for a in _actions(client, uri, jit110) if "Disable" in a["title"]]
    assert disable["title"] == "jitlint: Disable JIT110 for this line"
    [edit] = disable["edit"]["changes"][uri]
    text = _apply_line_edit(SOURCE, edit)
    assert "total(x, axes=[0, 1])  # noqa: JIT110\n" in text
    _change(client, uri, 2, text)
    assert _codes(client, uri, 2) == ["JIT101"]
    # A second code on a line with a `# noqa` extends it.
    extended = text.replace("    if x > 0:\n", "    if x > 0:  # noqa: JIT113\n")
    _change(client, uri, 3, extended)
    published = client.wait_for("textDocument/publishDiagnostics", lambda p: p.get("version") == 3)
    [jit101] = published["diagnostics"]
    [disable] = [a for a in _actions(client, uri, jit101) if "Disable" in a["title"]]
    [edit] = disable["edit"]["changes"][uri]
    assert edit["newText"] == "    if x > 0:  # noqa: JIT101, JIT113"
    assert client.close() == 0


def test_editor_select_and_ignore_apply_over_the_configuration(started, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT110"]\n')
    client = started({"settings": {"ignore": ["JIT101"]}})
    uri = client.open(tmp_path / "step.py", SOURCE)
    assert _codes(client, uri) == []  # the file's ignore and the editor's
    client.notify(
        "workspace/didChangeConfiguration",
        {"settings": {"jitlint": {"select": ["JIT110"]}}},
    )
    # The editor's `select` starts afresh, as `--select` does over the file's.
    assert _codes(client, uri) == ["JIT110"]
    assert client.close() == 0


@pytest.mark.parametrize(
    ("preference", "expected"),
    [
        ("editorFirst", ["JIT110"]),  # the editor's select wins
        ("filesystemFirst", ["JIT101"]),  # the file's config wins
        ("editorOnly", ["JIT110"]),  # the file's config is not read
    ],
)
def test_configuration_preference(started, tmp_path, preference, expected):
    (tmp_path / "jitlint.toml").write_text('select = ["JIT101"]\n')
    client = started({"select": ["JIT110"], "configurationPreference": preference})
    uri = client.open(tmp_path / "step.py", SOURCE)
    assert _codes(client, uri) == expected
    assert client.close() == 0


def test_editor_only_ignores_the_configuration_files_limits_too(started, tmp_path):
    (tmp_path / "jitlint.toml").write_text('ignore = ["JIT110", "JIT101"]\n')
    client = started({"configurationPreference": "editorOnly"})
    uri = client.open(tmp_path / "step.py", SOURCE)
    assert _codes(client, uri) == ["JIT101", "JIT110"]
    assert client.close() == 0


def test_unsafe_fixes_setting_applies_to_fix_all(started, tmp_path):
    every = {"start": {"line": 0, "character": 0}, "end": {"line": 14, "character": 0}}
    results = {}
    for unsafe in (False, True):
        client = started({"unsafe-fixes": unsafe})
        uri = client.open(tmp_path / "step.py", SOURCE)
        client.wait_for("textDocument/publishDiagnostics")
        [fix_all] = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": every,
                "context": {"diagnostics": [], "only": ["source.fixAll"]},
            },
        )
        [edit] = fix_all["edit"]["changes"][uri]
        results[unsafe] = edit["newText"]
        assert client.close() == 0
    assert "axes=(0, 1)" in results[False] and "if x > 0:" in results[False]
    assert "axes=(0, 1)" in results[True] and "if x > 0:" not in results[True]


def test_a_bad_setting_is_shown_and_ignored(started, tmp_path):
    client = started({"select": "JIT110", "configurationPreference": "sometimes"})
    shown = " ".join(client.wait_for("window/showMessage")["message"] for _ in range(2))
    assert "`select` must be a list of codes" in shown
    assert "`configurationPreference` must be one of" in shown
    uri = client.open(tmp_path / "step.py", SOURCE)
    assert _codes(client, uri) == ["JIT101", "JIT110"]
    assert client.close() == 0
