"""The acceptance conversation of #18 with `jitlint server`, driven by pygls's own
`LanguageClient` (not the hand-written client of tests/test_server.py): a separate JSON-RPC
implementation that frames, encodes and decodes with lsprotocol's types, over the server
process's stdin and stdout.

initialize -> initialized -> didOpen -> publishDiagnostics with JIT codes -> codeAction with an
edit (applied, it removes the finding) -> shutdown -> exit, and the process ends with status 0.
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")

from lsprotocol import types
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 120  # seconds for each answer, for a loaded CI machine

SOURCE = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes",))
    def total(x, axes):
        return x.sum(axis=axes)


    total(x, axes=[0, 1])
    """
)


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply non-overlapping LSP edits (ASCII text, so UTF-16 columns are characters)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def _conversation(root: Path) -> tuple[list, list, str, int | None]:
    client = LanguageClient("jitlint-test", "0")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    env = {**os.environ}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    await client.start_io(sys.executable, "-m", "jitlint", "server", cwd=str(root), env=env)
    try:
        result = await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(),
                    root_uri=root.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="p")],
                )
            ),
            TIMEOUT,
        )
        assert result.server_info is not None and result.server_info.name == "jitlint"
        client.initialized(types.InitializedParams())

        path = root / "step.py"
        path.write_text(SOURCE)
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=SOURCE
                )
            )
        )
        diagnostics = (await asyncio.wait_for(published.get(), TIMEOUT)).diagnostics
        jit110 = [d for d in diagnostics if d.code == "JIT110"]
        assert jit110, [d.code for d in diagnostics]
        actions = await asyncio.wait_for(
            client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=jit110[0].range,
                    context=types.CodeActionContext(
                        diagnostics=jit110, only=[types.CodeActionKind.QuickFix]
                    ),
                )
            ),
            TIMEOUT,
        )
        # The fixes, not the "Disable JIT110 for this line" action.
        actions = [a for a in actions or [] if a.title.startswith("jitlint (")]
        fixed = SOURCE
        for action in actions:
            assert isinstance(action, types.CodeAction)
            assert action.edit is not None and action.edit.changes is not None
            fixed = _apply(fixed, list(action.edit.changes[uri]))
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        server = client._server
        assert server is not None
        status = await asyncio.wait_for(server.wait(), TIMEOUT)
        return diagnostics, list(actions or []), fixed, status
    finally:
        await client.stop()


def test_a_pygls_client_gets_diagnostics_and_a_fix_then_shuts_the_server_down(tmp_path):
    diagnostics, actions, fixed, status = asyncio.run(_conversation(tmp_path))
    assert [d.code for d in diagnostics] == ["JIT110"]
    assert all(d.source == "jitlint" for d in diagnostics)
    [action] = actions
    assert action.kind == types.CodeActionKind.QuickFix and action.is_preferred
    assert action.title.startswith("jitlint (JIT110): ")
    assert fixed == SOURCE.replace("axes=[0, 1]", "axes=(0, 1)")
    assert status == 0
