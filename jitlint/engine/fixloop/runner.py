"""`--fix` and `--diff` over many files, in the same process pool shape as linting."""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.files import (
    ChangedOnDisk,
    NotWritable,
    diff_names,
    encode,
    write_atomically,
)
from jitlint.engine.fixloop.passes import fix_text
from jitlint.engine.linter import FileResult, lint_text
from jitlint.engine.runner import Progress, Task, jit001, project_inbound, read_task
from jitlint.engine.source import DecodeProblem, SourceText, decode_source, split_lines
from jitlint.notebook import is_notebook
from jitlint.system.budget import OverBudget, budget
from jitlint.system.workers import Workers

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
    """What `--fix` did to one file."""

    path: str
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    diff: str = ""
    # stdin: the bytes to print, in the input's encoding and BOM; the input itself when it
    # was not fixed (cannot be decoded, too big, over budget): an editor that pipes its
    # buffer through `jitlint - --fix` must never get less back than it gave.
    output: bytes | None = None
    pending: PendingWrite | None = None  # what the main process writes (maybe verified first)


def fix_task(task: Task, mode: Mode, unsafe: bool, fixable: Collection[str]) -> FixedFile:
    """Fix one file in memory: what to write is left in `pending` (workers never write).
    A file over its time or memory budget is left as it is, with a JIT001 finding."""
    try:
        with budget(task.max_seconds, task.max_memory):
            return _fix_task(task, mode, unsafe, fixable)
    except OverBudget as exc:
        return FixedFile(
            task.display, remaining=jit001(task, str(exc)).diagnostics, output=task.source
        )


def _fix_task(task: Task, mode: Mode, unsafe: bool, fixable: Collection[str]) -> FixedFile:
    data = read_task(task)
    if isinstance(data, FileResult):  # unreadable or too big: reported as JIT001
        return FixedFile(
            task.display, remaining=data.diagnostics, errors=data.errors, output=task.source
        )
    # The file's own config's fix settings (nearest config per file), else the run's.
    unsafe = unsafe if task.unsafe_fixes is None else task.unsafe_fixes
    fixable = fixable if task.fixable is None else task.fixable
    if is_notebook(task.path or task.display):
        return _fix_notebook(task, data, mode, unsafe, fixable)
    stdin = task.path is None
    try:
        decoded = decode_source(data)
    except DecodeProblem:
        result = lint_text(data, task.display, task.codes, task.rule_options)
        return FixedFile(
            task.display,
            remaining=result.diagnostics,
            errors=result.errors,
            output=data if stdin else None,
        )
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
    if stdin:
        fixed.output = data
    if not outcome.applied or outcome.source == decoded.text:
        return fixed
    if mode == "diff":
        old_name, new_name = diff_names(task.display)
        fixed.diff = "".join(
            difflib.unified_diff(
                split_lines(decoded.text), split_lines(outcome.source),
                fromfile=old_name, tofile=new_name,
            )
        )  # fmt: skip
    elif stdin:
        try:
            fixed.output = encode(outcome.source, decoded)
        except UnicodeEncodeError as exc:
            _not_fixed(fixed, task, decoded, f"the fixed text cannot be encoded as {exc.encoding}")
    else:
        fixed.pending = PendingWrite(task, data, decoded, outcome.source)
    return fixed


def _fix_notebook(
    task: Task, data: bytes, mode: Mode, unsafe: bool, fixable: Collection[str]
) -> FixedFile:
    """As `_fix_task` for a notebook: its code cells are fixed, nothing else in it changes."""
    from jitlint.engine.notebook import fix_notebook

    outcome = fix_notebook(
        data, task.display, task.codes, task.rule_options, unsafe=unsafe, fixable=fixable,
        inbound=task.inbound, max_file_size=task.max_file_size,
    )  # fmt: skip
    fixed = FixedFile(task.display, outcome.applied, outcome.remaining, outcome.errors)
    if task.path is None:
        fixed.output = outcome.text.encode("utf-8")
    if not outcome.changed:
        return fixed
    if mode == "diff":
        fixed.diff = outcome.diff(task.display)
    elif task.path is not None:
        # JSON is UTF-8: read_notebook refused anything else; the BOM is in outcome.text.
        original = SourceText(data.decode("utf-8"), "utf-8", False, "\n")
        fixed.pending = PendingWrite(task, data, original, outcome.text)
    return fixed


def _lint_unwritten(task: Task, text: str) -> FileResult:
    """The findings of a file whose fixes could not be written."""
    if is_notebook(task.path or task.display):
        from jitlint.engine.notebook import lint_notebook

        return lint_notebook(
            text, task.display, task.codes, task.rule_options, inbound=task.inbound
        )
    return lint_text(text, task.display, task.codes, task.rule_options, inbound=task.inbound)


def _not_fixed(fixed: FixedFile, task: Task, decoded: SourceText, reason: str) -> None:
    fixed.errors.append(f"{task.display}: not written: {reason}")
    # Nothing was written, so the original findings all remain.
    original = _lint_unwritten(task, decoded.text)
    fixed.applied, fixed.remaining = [], original.diagnostics


def write_pending(fixed: FixedFile) -> None:
    pending, fixed.pending = fixed.pending, None
    if pending is None or pending.text == pending.decoded.text:
        return
    task, decoded = pending.task, pending.decoded
    assert task.path is not None
    try:
        data = encode(pending.text, decoded)
        write_atomically(Path(task.path), data, pending.original)
    except UnicodeEncodeError as exc:
        _not_fixed(fixed, task, decoded, f"the fixed text cannot be encoded as {exc.encoding}")
    except (ChangedOnDisk, NotWritable) as exc:
        _not_fixed(fixed, task, decoded, str(exc))
    except OSError as exc:
        _not_fixed(fixed, task, decoded, exc.strerror or str(exc))


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
    before any fix (a fix in the caller is seen by the next run).

    Workers only compute; this process writes, each file as its result arrives (so a killed
    main process stops every write at once, and workers die with it)."""
    tasks = list(tasks)
    inbound = project_inbound(tasks, jobs, project_root)
    if inbound:
        tasks = [dataclasses.replace(t, inbound=inbound.get(t.display)) for t in tasks]
    work = functools.partial(fix_task, mode=mode, unsafe=unsafe, fixable=frozenset(fixable))
    if progress is not None:
        progress.planned(len(tasks))
    files: list[FixedFile] = []
    with Workers(jobs) as workers:
        for fixed in workers.map(work, tasks):
            if before_write is None:
                write_pending(fixed)
            files.append(fixed)
            if progress is not None:
                progress.done()
    files.sort(key=lambda f: f.path)
    if before_write is not None:
        before_write(files)
        for fixed in files:
            write_pending(fixed)
    return files
