"""The command line's `--fix` / `--diff` path: apply or show fixes, then report what remains."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.runner import FixedFile, Mode, run_fixes
from jitlint.engine.runner import Task

if TYPE_CHECKING:
    from jitlint.frontends.terminal import TerminalProgress
    from jitlint.verify.command import FixVerifier

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def fix_summary(
    applied: Sequence[Diagnostic],
    remaining: Sequence[Diagnostic],
    diff: bool,
    fix_only: bool = False,
) -> str:
    """`Fixed N findings; M remain.` (`--fix-only` says nothing of what remains)."""
    unsafe = sum(1 for d in applied if d.fix is not None and d.fix.applicability == "unsafe")
    verb = "Would fix" if diff else "Fixed"
    noun = "finding" if len(applied) == 1 else "findings"
    text = f"{verb} {len(applied)} {noun}"
    if unsafe:
        text += f" ({unsafe} unsafe)"
    if not diff and not fix_only:
        text += f"; {len(remaining)} remain" if len(remaining) != 1 else "; 1 remains"
    return text + ".\n"


def fixes_listing(applied: Sequence[Diagnostic]) -> str:
    """`--show-fixes`: the fixes applied, per file and rule, as ruff lists them."""
    if not applied:
        return ""
    by_file: dict[str, Counter[tuple[str, str]]] = {}
    for d in applied:
        by_file.setdefault(d.path, Counter())[(d.code, d.name)] += 1
    noun = "finding" if len(applied) == 1 else "findings"
    lines = [f"Fixed {len(applied)} {noun}:"]
    for path in sorted(by_file):
        lines.append(f"- {path}:")
        for (code, name), count in sorted(by_file[path].items()):
            lines.append(f"    {count} x {code} ({name})")
    return "\n".join(lines) + "\n\n"


def run_fix_mode(
    tasks: list[Task],
    mode: Mode,
    unsafe: bool,
    fixable: set[str],
    jobs: int | None,
    report: Callable[[list[Diagnostic], bool], None],
    quiet: bool,
    verifier: FixVerifier | None = None,
    json_output: bool = False,
    project_root: Path | None = None,
    machine_output: bool = False,
    stream: TextIO | None = None,
    show_fixes: bool = False,
    progress: TerminalProgress | None = None,
    fix_only: bool = False,
    exit_non_zero_on_fix: bool = False,
) -> int:
    """Fix (or diff) `tasks`; `report(remaining, to_stderr)` prints the remaining findings.

    With a `verifier`, nothing is written before it has verified (and maybe narrowed) every
    file; its per-function lines follow the findings, or one JSON document replaces both.
    The report goes to `stream` (default stdout); a diff and stdin's fixed text to stdout.
    With `machine_output` the report owns that stream and the summary goes to stderr.
    `progress` is erased before anything is printed. `fix_only`: the remaining findings are
    not reported, nor counted in the status; `exit_non_zero_on_fix`: a fix applied is status
    1, as a finding left is."""
    out = stream if stream is not None else sys.stdout
    if fix_only:
        report = _report_nothing
    try:
        files: list[FixedFile] = run_fixes(
            tasks, mode, unsafe, fixable, jobs, verifier, project_root, progress
        )
    finally:
        if progress is not None:
            progress.close()
    applied = [d for f in files for d in f.applied]
    remaining = [d for f in files for d in f.remaining]
    errors = [e for f in files for e in f.errors]
    for error in errors:
        print(f"jitlint: error: {error}", file=sys.stderr)
    stdin = len(tasks) == 1 and tasks[0].path is None
    # A machine format owns its stream: the human summary goes to stderr beside it.
    summary_stream = sys.stderr if machine_output else out
    if mode == "diff":
        diffs = "".join(f.diff for f in files)
        sys.stdout.write(diffs)
        if not quiet:
            sys.stderr.write(fix_summary(applied, remaining, diff=True))
        if errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if diffs else EXIT_CLEAN
    if stdin:
        # The fixed text is the output; findings go to stderr, as editors expect.
        output = files[0].output or b""
        if output == tasks[0].source:
            echo_stdin(output)  # unchanged: with whatever was left unread
        else:
            write_bytes(output)
        report(remaining, True)
        if not quiet:
            sys.stderr.write(fix_summary(applied, remaining, diff=False, fix_only=fix_only))
    elif verifier is not None:
        from jitlint.verify import report as verify_report

        for note in verifier.notes:
            print(f"jitlint: {note}", file=sys.stderr)
        if json_output:
            out.write(verify_report.to_json(verifier.results, applied, remaining))
        else:
            report(remaining, False)
            verify_report.write_text(verifier.results, out, quiet)
            if not quiet:
                out.write(fix_summary(applied, remaining, diff=False, fix_only=fix_only))
    else:
        report(remaining, False)
        if show_fixes and not json_output:
            summary_stream.write(fixes_listing(applied))
        if not quiet:
            summary_stream.write(fix_summary(applied, remaining, diff=False, fix_only=fix_only))
    if errors:
        return EXIT_ERROR
    if exit_non_zero_on_fix and applied:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if remaining and not fix_only else EXIT_CLEAN


def _report_nothing(remaining: list[Diagnostic], to_stderr: bool) -> None:
    """`--fix-only`: what remains is not reported."""


def write_bytes(data: bytes) -> None:
    """Write `data` to stdout unchanged (stdin --fix keeps the input's encoding and BOM)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests redirect stdout to a StringIO)
        sys.stdout.write(data.decode("utf-8", "surrogateescape"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def echo_stdin(head: bytes) -> None:
    """Give back stdin unchanged: `head` (what was read of it), then the rest, in chunks."""
    write_bytes(head)
    source = getattr(sys.stdin, "buffer", None)
    while source is not None and (chunk := source.read(1 << 20)):
        write_bytes(chunk)
