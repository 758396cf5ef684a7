"""`jitlint server`: a Language Server over stdio (pygls and lsprotocol: `jitlint[server]`).

- Diagnostics when a Python file is opened, changed and saved: the buffer's own findings,
  with the calls other files of the project make into it as the project pass finds them on
  disk (editor.py). The first ones come at once; those the project pass adds follow.
- A quick fix per finding with a fix: safe fixes are preferred (what an editor applies on
  its "fix" shortcut); unsafe ones say so in their title and are never preferred.
- `source.fixAll.jitlint`: every fix `jitlint --fix` would apply (editors run it on save
  with `"source.fixAll"` in their code-actions-on-save setting).
- Hover over a finding (or a `JIT101` code in a comment): the rule's documentation.
- `exit` ends the process at once, whatever a worker thread is still linting.

Positions go through pygls's position codec, so UTF-16 clients (VS Code) and UTF-8/32 ones
get the columns they count in. pygls is imported only by `main`: `jitlint` itself works
without the extra.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jitlint.version import __version__

if TYPE_CHECKING:
    from jitlint.diagnostics import Diagnostic
    from jitlint.frontends.editor import EditorState, FileSetup

FIX_ALL_KIND = "source.fixAll.jitlint"
MISSING_EXTRA = (
    "`jitlint server` needs pygls and lsprotocol, which are not installed: "
    "pip install 'jitlint[server]'"
)
_CODE = re.compile(r"JIT\d{3}")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="jitlint server",
        description="Run the jitlint Language Server on stdin/stdout (for editors).",
    )
    parser.parse_args(list(argv))
    try:
        server = build_server()
    except ImportError as exc:
        print(f"jitlint: error: {MISSING_EXTRA} ({exc})", file=sys.stderr)
        return 2
    server.start_io()
    return 0


def build_server() -> Any:
    """The pygls server with jitlint's features; ImportError without the extra."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    from jitlint.config import ConfigError
    from jitlint.frontends.editor import EditorState, rule_docs
    from jitlint.notebook.document import lines_of
    from jitlint.selection import UnknownSelector

    server = LanguageServer("jitlint", __version__)
    state: dict[str, Any] = {"editor": None, "shown_error": None}
    # uri -> (version, the buffer's lines, its findings): what code actions and hover use.
    known: dict[str, tuple[int | None, list[str], list[Diagnostic]]] = {}

    def editor() -> EditorState:
        if state["editor"] is None:
            roots = [Path(p) for f in server.workspace.folders.values() if (p := to_fs_path(f.uri))]
            if not roots and server.workspace.root_path:
                roots = [Path(server.workspace.root_path)]
            state["editor"] = EditorState(roots)
        return state["editor"]

    def path_of(uri: str) -> Path | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return Path(path) if path else None

    def setup_for(uri: str) -> FileSetup | None:
        try:
            return editor().setup(path_of(uri))
        except (ConfigError, UnknownSelector) as exc:
            if state["shown_error"] != str(exc):  # once, not on every keystroke
                state["shown_error"] = str(exc)
                server.window_show_message(
                    types.ShowMessageParams(types.MessageType.Error, f"jitlint: {exc}")
                )
            return None

    # ---- positions ----------------------------------------------------------------------
    def position(lines: list[str], line: int, column: int) -> types.Position:
        """A 1-based line and code-point column -> the client's position."""
        codec = server.workspace.position_codec
        return codec.position_to_client_units(lines, types.Position(line - 1, column - 1))

    def span(lines: list[str], line: int, column: int, end_line: int, end_column: int):
        return types.Range(position(lines, line, column), position(lines, end_line, end_column))

    def to_lsp(d: Diagnostic, lines: list[str]) -> types.Diagnostic:
        return types.Diagnostic(
            range=span(lines, d.line, d.column, d.end_line, d.end_column),
            message=d.message if d.help is None else f"{d.message}\nhelp: {d.help}",
            severity=(
                types.DiagnosticSeverity.Error
                if d.severity == "error"
                else types.DiagnosticSeverity.Warning
            ),
            code=d.code,
            code_description=types.CodeDescription(href=d.url),
            source="jitlint",
        )

    # ---- diagnostics --------------------------------------------------------------------
    def snapshot(uri: str) -> tuple[int | None, str]:
        """The buffer's version and text, read together (the loop thread applies changes
        while a worker lints)."""
        while True:
            document = server.workspace.get_text_document(uri)
            version, text = document.version, document.source
            if server.workspace.get_text_document(uri).version == version:
                return version, text

    def lint_and_publish(uri: str, setup: FileSetup) -> None:
        version, text = snapshot(uri)
        try:
            findings = editor().lint(setup, text)
        except Exception as exc:  # an internal error must not end the server
            server.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"jitlint: {uri}: {exc!r}")
            )
            findings = []
        if server.workspace.get_text_document(uri).version != version:
            return  # a newer change is being linted
        lines = lines_of(text)
        known[uri] = (version, lines, findings)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=[to_lsp(d, lines) for d in findings]
            )
        )

    def check(uri: str, refresh_project: bool) -> None:
        setup = setup_for(uri)
        if setup is None:
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )
            return
        lint_and_publish(uri, setup)  # at once, with what is known of the project
        before = editor().inbound(setup)
        try:
            if refresh_project:
                editor().refresh(setup)
            else:
                editor().ensure_project(setup)
        except Exception as exc:  # the one-file findings stand without the project pass
            server.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error, f"jitlint: project pass failed: {exc!r}"
                )
            )
            return
        if editor().inbound(setup) != before:
            lint_and_publish(uri, setup)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @server.thread()
    def did_open(ls: Any, params: types.DidOpenTextDocumentParams) -> None:
        check(params.text_document.uri, refresh_project=False)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @server.thread()
    def did_change(ls: Any, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        setup = setup_for(uri)
        if setup is not None:
            lint_and_publish(uri, setup)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @server.thread()
    def did_save(ls: Any, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.endswith(("/pyproject.toml", "/jitlint.toml")):
            editor().forget_settings()
            state["shown_error"] = None
            for other in list(known):
                check(other, refresh_project=False)
            return
        check(uri, refresh_project=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Any, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        known.pop(uri, None)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    # ---- code actions -------------------------------------------------------------------
    def current(uri: str) -> tuple[list[str], list[Diagnostic], FileSetup] | None:
        """The buffer's lines and findings for its current version (linted again if the
        stored ones are older), with its setup."""
        setup = setup_for(uri)
        if setup is None:
            return None
        version, text = snapshot(uri)
        stored = known.get(uri)
        if stored is not None and stored[0] == version:
            return stored[1], stored[2], setup
        return lines_of(text), editor().lint(setup, text), setup

    def wanted(kind: str, only: Sequence[str] | None) -> bool:
        return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)

    def overlaps(d: Diagnostic, lines: list[str], asked: types.Range) -> bool:
        found = span(lines, d.line, d.column, d.end_line, d.end_column)
        start = (found.start.line, found.start.character)
        end = (found.end.line, found.end.character)
        return (
            start <= (asked.end.line, asked.end.character)
            and (
                asked.start.line,
                asked.start.character,
            )
            <= end
        )

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND],
            resolve_provider=False,
        ),
    )
    def code_action(ls: Any, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        found = current(uri)
        if found is None:
            return []
        lines, findings, setup = found
        only = [str(k) for k in params.context.only or []] or None
        actions = []
        if wanted(types.CodeActionKind.QuickFix, only):
            for d in findings:
                if d.fix is None or d.code not in setup.fixable:
                    continue
                if not overlaps(d, lines, params.range):
                    continue
                safe = d.fix.applicability == "safe"
                edits = [
                    types.TextEdit(
                        span(lines, e.line, e.column, e.end_line, e.end_column), e.content
                    )
                    for e in d.fix.edits
                ]
                actions.append(
                    types.CodeAction(
                        title=f"jitlint ({d.code}): {d.fix.message}"
                        + ("" if safe else " (unsafe fix)"),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[to_lsp(d, lines)],
                        edit=types.WorkspaceEdit(changes={uri: edits}),
                        is_preferred=safe,
                    )
                )
        if wanted(FIX_ALL_KIND, only):
            _, text = snapshot(uri)
            fixed = editor().fix_all(setup, text)
            if fixed != text:
                whole = types.Range(types.Position(0, 0), types.Position(len(lines), 0))
                actions.append(
                    types.CodeAction(
                        title="jitlint: fix all",
                        kind=FIX_ALL_KIND,
                        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(whole, fixed)]}),
                    )
                )
        return actions

    # ---- shutdown and exit ----------------------------------------------------------------
    @server.feature(types.SHUTDOWN)
    def shutdown(ls: Any, params: None) -> None:
        state["shutdown"] = True

    @server.feature(types.EXIT)
    def exit_now(ls: Any, params: None) -> None:
        # pygls would end the event loop, then join its worker threads: a lint or a project
        # pass still running (minutes over a large workspace) would keep the process alive
        # long after the editor asked it to go, writing a cache nobody waits for. Nothing
        # of theirs is needed now; the cache is written by rename, so a cut-short write
        # leaves the old one. Workers of a project pass die with this process.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0 if state.get("shutdown") else 1)  # the LSP spec's codes

    # ---- hover --------------------------------------------------------------------------
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: Any, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        found = current(uri)
        if found is None:
            return None
        lines, findings, _ = found
        at = types.Range(params.position, params.position)
        codes = [d.code for d in findings if overlaps(d, lines, at)]
        if not codes:  # a code named in a suppression comment
            word = server.workspace.get_text_document(uri).word_at_position(params.position)
            codes = [word] if _CODE.fullmatch(word) else []
        pages = [page for code in dict.fromkeys(codes) if (page := rule_docs(code))]
        if not pages:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(pages)
            )
        )

    return server
