"""`--fix` and `--diff` over many files, in the same process pool shape as linting."""

from __future__ import annotations

import contextlib
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
from jitlint.engine.runner import Progress, Task, process_pool, project_inbound, read_task
from jitlint.engine.source import DecodeProblem, SourceText, decode_source
from jitlint.fixes.engine import fix_text
from jitlint.fixes.files import ChangedOnDisk, encode, write_atomically

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
        unsafe=unsafe if task.unsafe_fixes is None else task.unsafe_fixes,
        fixable=fixable if task.fixable is None else task.fixable,
        inbound=task.inbound,
    )
    fixed = FixedFile(task.display, outcome.applied, outcome.remaining, outcome.errors)
    if task.path is None:
        fixed.output = outcome.source
    if not outcome.applied or outcome.source == decoded.text:
        return fixed
    if mode == "diff":
        old_name, new_name = diff_names(task.display)
        fixed.diff = "".join(
            difflib.unified_diff(
                decoded.text.splitlines(keepends=True),
                outcome.source.splitlines(keepends=True),
                fromfile=old_name,
                tofile=new_name,
            )
        )
    elif task.path is not None:
        fixed.pending = PendingWrite(task, data, decoded, outcome.source)
        if not defer:
            write_pending(fixed)
    return fixed


def diff_names(display: str) -> tuple[str, str]:
    """git's `a/` and `b/` prefixes for a relative path; an absolute one is named as it is
    (`a//tmp/x.py` is no path at all), as `diff -u` names it."""
    if os.path.isabs(display):
        return display, display
    return f"a/{display}", f"b/{display}"


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
        original = lint_text(
            decoded.text, task.display, task.codes, task.rule_options, inbound=task.inbound
        )
        fixed.applied, fixed.remaining = [], original.diagnostics


def run_fixes(
    tasks: Iterable[Task],
    mode: Mode,
    unsafe: bool,
    fixable: Collection[str],
    jobs: int | None = None,
    before_write: Callable[[list[FixedFile]], None] | None = None,
    project_root: Path | None = None,
    progress: Progress | None = None,
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
    if progress is not None:
        progress.planned(len(tasks))
    files = []
    with contextlib.ExitStack() as stack:
        results: Iterable[FixedFile]
        if jobs > 1 and len(tasks) >= 16:
            pool = stack.enter_context(process_pool(jobs))
            results = pool.map(work, tasks, chunksize=max(1, len(tasks) // (jobs * 8)))
        else:
            results = (work(task) for task in tasks)
        for fixed in results:
            files.append(fixed)
            if progress is not None:
                progress.done()
    files.sort(key=lambda f: f.path)
    if before_write is not None:
        before_write(files)
        for fixed in files:
            write_pending(fixed)
    return files
