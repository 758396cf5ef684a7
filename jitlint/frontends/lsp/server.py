"""`jitlint server`: a Language Server over stdio (pygls and lsprotocol: `jitlint[server]`).

- Diagnostics when a Python file is opened, changed and saved: the buffer's own findings,
  with the calls other files of the project make into it as the project pass finds them on
  disk (editor.py). The first ones come at once; those the project pass adds follow.
- A quick fix per finding with a fix: safe fixes are preferred (what an editor applies on
  its "fix" shortcut); unsafe ones say so in their title and are never preferred.
- `source.fixAll.jitlint`: every fix `jitlint --fix` would apply (editors run it on save
  with `"source.fixAll"` in their code-actions-on-save setting).
- Hover over a finding (or a `JIT101` code in a comment): the rule's documentation.
- `exit` ends the process at once, whatever is still being linted; so does the end of
  stdin. Threads, debounce, limits and the JSON-RPC rules: serving.py; framing: framing.py.

Positions go through pygls's position codec, so UTF-16 clients (VS Code) and UTF-8/32 ones
get the columns they count in. pygls is imported only by `main`: `jitlint` itself works
without the extra.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jitlint.frontends.lsp.framing import FrameReader
from jitlint.frontends.lsp.serving import Background, Gate, Scheduler
from jitlint.version import __version__

if TYPE_CHECKING:
    from jitlint.diagnostics import Diagnostic
    from jitlint.frontends.lsp.editor import EditorState, FileSetup

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
        server, scheduler, loop = build_server()
    except ImportError as exc:
        print(f"jitlint: error: {MISSING_EXTRA} ({exc})", file=sys.stderr)
        return 2
    serve(server, scheduler, loop, sys.stdin.fileno())
    return 0


def _end(status: int) -> None:
    """End the process now: nothing still linting is needed, and a project pass over a
    large workspace would keep it alive for minutes (pygls joins its threads). The cache is
    written by rename, so a cut-short write leaves the old one; worker processes die with
    this one (system/workers.py)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)


def serve(server: Any, scheduler: Scheduler, loop: asyncio.AbstractEventLoop, fd: int) -> None:
    """The message loop in a thread, the reader of `fd` in another, lints in this one."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcException
    from pygls.io_ import StdoutWriter

    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    server._stop_event = threading.Event()

    def log(message: str) -> None:
        params = types.LogMessageParams(types.MessageType.Warning, f"jitlint: {message}")
        loop.call_soon_threadsafe(server.window_log_message, params)

    def structure(message: dict[str, Any]) -> Any:
        try:
            return server.protocol.structure_message(message)
        except JsonRpcException as exc:
            raise ValueError(str(exc.__cause__ or exc)) from None

    def reply_error(ident: int | str, code: int, message: str) -> None:
        from lsprotocol.types import ResponseError

        error = ResponseError(code=code, message=message)
        loop.call_soon_threadsafe(server.protocol._send_response, ident, None, error)

    def end(status: int) -> None:
        # Through the loop, so that every answer already queued is written first.
        loop.call_soon_threadsafe(_end, status)

    gate = Gate(
        structure,
        lambda typed: loop.call_soon_threadsafe(server.protocol.handle_message, typed),
        reply_error,
        log,
        end,
    )

    def read() -> None:
        reader = FrameReader(fd, log)
        while (message := reader.next()) is not None:
            gate.handle(message)
        end(0 if gate.shut_down else 1)  # the client is gone: stop linting for nobody

    threading.Thread(target=loop.run_forever, name="jitlint-lsp", daemon=True).start()
    threading.Thread(target=read, name="jitlint-reader", daemon=True).start()
    scheduler.run_forever()


def build_server() -> tuple[Any, Scheduler, asyncio.AbstractEventLoop]:
    """The pygls server with jitlint's features, the scheduler its lints run on (the main
    thread's) and the loop its messages are handled on; ImportError without the extra."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    from jitlint.config import ConfigError
    from jitlint.frontends.lsp.editor import EditorSettings, EditorState, noqa_line, rule_docs
    from jitlint.notebook.document import lines_of
    from jitlint.selection import UnknownSelector
    from jitlint.system.budget import Cancelled

    server = LanguageServer("jitlint", __version__)
    loop = asyncio.new_event_loop()
    state: dict[str, Any] = {
        "editor": None,
        "shown_error": None,
        "generation": 0,
        "trace": types.TraceValue.Off,
        "settings": EditorSettings(),
    }
    # uri -> (version, the buffer's lines, its findings): what code actions and hover use.
    known: dict[str, tuple[int | None, list[str], list[Diagnostic]]] = {}
    opened: set[str] = set()

    def log(message: str, kind: Any = types.MessageType.Error) -> None:
        server.window_log_message(types.LogMessageParams(kind, f"jitlint: {message}"))

    # An error in a notification's handler or in a malformed message goes to the log, not
    # into a popup (pygls's default) on every keystroke.
    server.report_server_error = lambda error, source: log(f"{type(error).__name__}: {error}")
    projects = Background("jitlint-project", lambda exc: log(f"project pass failed: {exc!r}"))

    def editor() -> EditorState:
        if state["editor"] is None:
            roots = [Path(p) for f in server.workspace.folders.values() if (p := to_fs_path(f.uri))]
            if not roots and server.workspace.root_path:
                roots = [Path(server.workspace.root_path)]
            state["editor"] = EditorState(roots, editor_settings=state["settings"])
        return state["editor"]

    def path_of(uri: str) -> Path | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return Path(path) if path else None

    def setup_for(uri: str) -> FileSetup | None:
        try:
            setup = editor().setup(path_of(uri))
        except (ConfigError, UnknownSelector) as exc:
            if state["shown_error"] != str(exc):  # once, not on every keystroke
                state["shown_error"] = str(exc)
                server.window_show_message(
                    types.ShowMessageParams(types.MessageType.Error, f"jitlint: {exc}")
                )
            return None
        if editor().generation != state["generation"]:  # a config changed on disk
            state["generation"] = editor().generation
            state["shown_error"] = None
            for other in set(opened) - {uri}:  # a copy: the loop thread changes it
                scheduler.lint_later(other, 0)
            project_pass(setup, refresh=True)
        return setup

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
        while the main thread lints)."""
        while True:
            document = server.workspace.get_text_document(uri)
            version, text = document.version, document.source
            if server.workspace.get_text_document(uri).version == version:
                return version, text

    def publish(uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> None:
        params = types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics)
        loop.call_soon_threadsafe(server.text_document_publish_diagnostics, params)

    def lint_buffer(uri: str) -> None:
        """On the main thread: lint the buffer's latest version and publish its findings,
        unless it changed (or closed) meanwhile: then a newer lint is due."""
        if uri not in opened:
            return
        setup = setup_for(uri)
        if setup is None:
            publish(uri, None, [])
            return
        version, text = snapshot(uri)
        began = time.perf_counter()
        try:
            findings = editor().lint(setup, text, scheduler.superseded)
        except Cancelled:
            return
        except Exception as exc:  # an internal error must not end the server
            log(f"{uri}: {exc!r}")
            findings = []
        if uri not in opened or server.workspace.get_text_document(uri).version != version:
            return
        lines = lines_of(text)
        known[uri] = (version, lines, findings)
        if state["trace"] != types.TraceValue.Off:  # what the client's trace setting asks
            took = (time.perf_counter() - began) * 1000
            message = f"linted {uri} version {version}: {len(findings)} findings in {took:.0f} ms"
            loop.call_soon_threadsafe(server.log_trace, types.LogTraceParams(message))
        publish(uri, version, [to_lsp(d, lines) for d in findings])

    scheduler = Scheduler(lint_buffer)

    def project_pass(setup: FileSetup, refresh: bool) -> None:
        """In the project thread: the calls other files on disk make into each file; the
        open buffers whose calls changed are linted again."""

        def work() -> None:
            before = {uri: editor().inbound(s) for uri in list(opened) if (s := setup_for(uri))}
            if refresh:
                editor().refresh(setup)
            else:
                editor().ensure_project(setup)
            for uri, calls in before.items():
                now = setup_for(uri)
                if now is not None and editor().inbound(now) != calls:
                    scheduler.lint_later(uri, 0)

        projects.submit((setup.root, refresh), work)

    def check(uri: str, refresh_project: bool) -> None:
        scheduler.lint_later(uri, 0)  # at once, with what is known of the project
        setup = setup_for(uri)
        if setup is not None:
            project_pass(setup, refresh_project)

    @server.feature(types.INITIALIZE)
    def initialize(ls: Any, params: types.InitializeParams) -> None:
        state["trace"] = params.trace or types.TraceValue.Off
        state["settings"] = client_settings(params.initialization_options)

    def client_settings(raw: Any) -> EditorSettings:
        settings, problems = EditorSettings.from_client(raw)
        for problem in problems:
            server.window_show_message(
                types.ShowMessageParams(types.MessageType.Warning, f"jitlint: {problem}")
            )
        return settings

    @server.feature(types.INITIALIZED)
    def initialized(ls: Any, params: types.InitializedParams) -> None:
        # Ask to be told of configuration files changed on disk, where the client can; the
        # stamps checked on every lint catch the rest (editor.py).
        workspace = server.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched is None or not watched.dynamic_registration:
            return
        watchers = [
            types.FileSystemWatcher(glob_pattern=f"**/{name}")
            for name in ("pyproject.toml", "jitlint.toml")
        ]
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
        registration = types.Registration(
            id="jitlint-config",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        server.client_register_capability(types.RegistrationParams([registration]))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: Any, params: types.DidChangeConfigurationParams) -> None:
        state["settings"] = client_settings(params.settings)
        if state["editor"] is not None:
            editor().configure(state["settings"])  # the next setup lints every buffer again
        for uri in list(opened):
            scheduler.lint_later(uri, 0)

    @server.feature(types.SET_TRACE)
    def set_trace(ls: Any, params: types.SetTraceParams) -> None:
        state["trace"] = params.value

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Any, params: types.DidOpenTextDocumentParams) -> None:
        opened.add(params.text_document.uri)
        check(params.text_document.uri, refresh_project=False)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Any, params: types.DidChangeTextDocumentParams) -> None:
        scheduler.lint_later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: Any, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.endswith(("/pyproject.toml", "/jitlint.toml")):
            editor().forget_settings()  # the next setup re-lints every buffer
            for other in list(opened):
                scheduler.lint_later(other, 0)
            return
        check(uri, refresh_project=True)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: Any, params: types.DidChangeWatchedFilesParams) -> None:
        if any(c.uri.endswith(("/pyproject.toml", "/jitlint.toml")) for c in params.changes):
            editor().forget_settings()
            for other in list(opened):
                scheduler.lint_later(other, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Any, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        opened.discard(uri)
        scheduler.forget(uri)
        known.pop(uri, None)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    # ---- code actions -------------------------------------------------------------------
    def current(uri: str) -> tuple[list[str], list[Diagnostic], FileSetup] | None:
        """The buffer's lines and findings for its current version (linted again if the
        stored ones are older), with its setup."""
        if uri not in opened:  # only open buffers are known
            return None
        setup = setup_for(uri)
        if setup is None:
            return None
        version, text = snapshot(uri)
        stored = known.get(uri)
        if stored is not None and stored[0] == version:
            return stored[1], stored[2], setup
        return lines_of(text), editor().lint(setup, text), setup

    def stored_current(uri: str) -> bool:
        stored = known.get(uri)
        return uri not in opened or (stored is not None and stored[0] == snapshot(uri)[0])

    async def on_main_thread(work: Any) -> Any:
        """Run `work` where lints run (under their budgets), not on the message loop."""
        return await asyncio.wrap_future(scheduler.call(work))

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
    async def code_action(ls: Any, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await on_main_thread(lambda: actions_for(params))

    def actions_for(params: types.CodeActionParams) -> list[types.CodeAction]:
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
            actions.extend(disable_actions(uri, lines, findings, params.range))
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

    def disable_actions(
        uri: str, lines: list[str], findings: list[Diagnostic], asked: types.Range
    ) -> list[types.CodeAction]:
        """ "Disable JITxxx for this line": the `# noqa` that `--add-noqa` would add."""
        actions = []
        text = "".join(lines)
        for d in findings:
            if d.code == "JIT001" or not overlaps(d, lines, asked):
                continue
            changed = noqa_line(text, d.line, d.code)
            if changed is None:
                continue
            number, old, new = changed
            edit = types.TextEdit(span(lines, number, 1, number, len(old) + 1), new)
            actions.append(
                types.CodeAction(
                    title=f"jitlint: Disable {d.code} for this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[to_lsp(d, lines)],
                    edit=types.WorkspaceEdit(changes={uri: [edit]}),
                )
            )
        return actions

    # ---- hover --------------------------------------------------------------------------
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: Any, params: types.HoverParams) -> types.Hover | None:
        if stored_current(params.text_document.uri):
            return hover_for(params)
        return await on_main_thread(lambda: hover_for(params))

    def hover_for(params: types.HoverParams) -> types.Hover | None:
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

    return server, scheduler, loop
