"""`--fix` and `--diff` over many files, in the same process pool shape as linting."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from jitlint.diagnostics import Diagnostic
from jitlint.engine.linter import FileResult, lint_text
from jitlint.engine.runner import Task, process_pool, project_inbound, read_task
from jitlint.engine.source import DecodeProblem, SourceText, decode_source
from jitlint.fixes.engine import fix_text
from jitlint.fixes.files import ChangedOnDisk, encode, write_atomically
from jitlint.notebook import is_notebook

Mode = Literal["fix", "diff"]


@dataclass
class PendingWrite:
    """A fixed file not yet written: the verifier may narrow `text` (or drop it) first."""

    task: Task
    original: bytes
    decoded: SourceText
    text: str


@dataclass
class FixedFile:
    path: str
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    diff: str = ""
    output: str | None = None  # the fixed text, for stdin
    pending: PendingWrite | None = None  # with `defer`: what to write once verified


def fix_task(
    task: Task, mode: Mode, unsafe: bool, fixable: Collection[str], defer: bool = False
) -> FixedFile:
    data = read_task(task)
    if isinstance(data, FileResult):  # unreadable or too big: reported as JIT001
        return FixedFile(task.display, remaining=data.diagnostics, errors=data.errors)
    if is_notebook(task.path or task.display):
        return _fix_notebook(task, data, mode, unsafe, fixable, defer)
    try:
        decoded = decode_source(data)
    except DecodeProblem:
        result = lint_text(data, task.display, task.codes, task.rule_options)
        return FixedFile(task.display, remaining=result.diagnostics, errors=result.errors)
    outcome = fix_text(
        decoded.text,
        task.display,
        task.codes,
        task.rule_options,
        unsafe=unsafe,
        fixable=fixable,
        inbound=task.inbound,
    )
    fixed = FixedFile(task.display, outcome.applied, outcome.remaining, outcome.errors)
    if task.path is None:
        fixed.output = outcome.source
    if not outcome.applied or outcome.source == decoded.text:
        return fixed
    if mode == "diff":
        fixed.diff = "".join(
            difflib.unified_diff(
                decoded.text.splitlines(keepends=True),
                outcome.source.splitlines(keepends=True),
                fromfile=f"a/{task.display}",
                tofile=f"b/{task.display}",
            )
        )
    elif task.path is not None:
        fixed.pending = PendingWrite(task, data, decoded, outcome.source)
        if not defer:
            write_pending(fixed)
    return fixed


def _fix_notebook(
    task: Task, data: bytes, mode: Mode, unsafe: bool, fixable: Collection[str], defer: bool
) -> FixedFile:
    """As `fix_task` for a notebook: its code cells are fixed, nothing else in it changes."""
    from jitlint.notebook.check import fix_notebook

    outcome = fix_notebook(
        data, task.display, task.codes, task.rule_options, unsafe=unsafe, fixable=fixable,
        inbound=task.inbound, max_file_size=task.max_file_size,
    )  # fmt: skip
    fixed = FixedFile(task.display, outcome.applied, outcome.remaining, outcome.errors)
    if task.path is None:
        fixed.output = outcome.text
    if not outcome.changed:
        return fixed
    if mode == "diff":
        fixed.diff = outcome.diff(task.display)
    elif task.path is not None:
        # JSON is UTF-8: read_notebook refused anything else; the BOM is in outcome.text.
        original = SourceText(data.decode("utf-8"), "utf-8", False, "\n")
        fixed.pending = PendingWrite(task, data, original, outcome.text)
        if not defer:
            write_pending(fixed)
    return fixed


def _lint_unwritten(task: Task, text: str) -> FileResult:
    """The findings of a file whose fixes could not be written."""
    if is_notebook(task.path or task.display):
        from jitlint.notebook.check import lint_notebook

        return lint_notebook(
            text, task.display, task.codes, task.rule_options, inbound=task.inbound
        )
    return lint_text(text, task.display, task.codes, task.rule_options, inbound=task.inbound)


def write_pending(fixed: FixedFile) -> None:
    pending, fixed.pending = fixed.pending, None
    if pending is None or pending.text == pending.decoded.text:
        return
    task, decoded = pending.task, pending.decoded
    assert task.path is not None
    try:
        write_atomically(Path(task.path), encode(pending.text, decoded), pending.original)
    except (ChangedOnDisk, OSError) as exc:
        reason = str(exc) if isinstance(exc, ChangedOnDisk) else exc.strerror or str(exc)
        fixed.errors.append(f"{task.display}: not written: {reason}")
        # Nothing was written, so the original findings all remain.
        original = _lint_unwritten(task, decoded.text)
        fixed.applied, fixed.remaining = [], original.diagnostics


def run_fixes(
    tasks: Iterable[Task],
    mode: Mode,
    unsafe: bool,
    fixable: Collection[str],
    jobs: int | None = None,
    before_write: Callable[[list[FixedFile]], None] | None = None,
    project_root: Path | None = None,
) -> list[FixedFile]:
    """`before_write` (the verifier) sees every fixed file before anything is written and may
    change or drop each `pending` write.

    A file that traced code in other files of the run calls into is fixed knowing those
    calls, as `jitlint check` reports it; they are found once, on the files as they were
    before any fix (a fix in the caller is seen by the next run)."""
    tasks = list(tasks)
    inbound = project_inbound(tasks, jobs, project_root)
    if inbound:
        tasks = [dataclasses.replace(t, inbound=inbound.get(t.display)) for t in tasks]
    defer = before_write is not None
    work = functools.partial(
        fix_task, mode=mode, unsafe=unsafe, fixable=frozenset(fixable), defer=defer
    )
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(tasks) >= 16:
        with process_pool(jobs) as pool:
            files = list(pool.map(work, tasks, chunksize=max(1, len(tasks) // (jobs * 8))))
    else:
        files = [work(task) for task in tasks]
    files.sort(key=lambda f: f.path)
    if before_write is not None:
        before_write(files)
        for fixed in files:
            write_pending(fixed)
    return files
