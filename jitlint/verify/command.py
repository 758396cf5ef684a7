"""The two ways in: `jitlint --fix --verify` (verify, then write what held) and `jitlint
verify` (fix in memory, verify, confirm the findings, write nothing)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from jitlint.config import Settings
from jitlint.engine.fixloop.passes import fix_text
from jitlint.engine.fixloop.runner import FixedFile
from jitlint.engine.linter import lint_text
from jitlint.engine.runner import Task, project_inbound
from jitlint.engine.source import DecodeProblem, decode_source
from jitlint.notebook import is_notebook
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file
from jitlint.verify.apply import apply_results
from jitlint.verify.plan import ModulePlan, plan_module
from jitlint.verify.results import FunctionResult
from jitlint.verify.runner import Options, Work, progress_printer, verify


def options_for(settings: Settings, jobs: int | None, confirm: bool, quiet: bool) -> Options:
    config = settings.verify
    return Options(
        root=settings.root,
        examples=list(config.examples),
        record_file=config.record_file,
        timeout=config.timeout,
        confirm=confirm,
        jobs=jobs,
        progress=None if quiet else progress_printer(sys.stderr),
    )


def caller_reader(paths: dict[str, str]) -> Callable[[str], tuple[str, str] | None]:
    """Reads a file of the run by its display path (as inbound call sites name it), as it is
    on disk: a helper's fix is verified with its callers as they were."""

    def read(display: str) -> tuple[str, str] | None:
        path = Path(paths.get(display) or display)
        try:
            return str(path.resolve()), decode_source(path.read_bytes()).text
        except (OSError, DecodeProblem):
            return None

    return read


@dataclass
class FixVerifier:
    """The `before_write` hook of `run_fixes`: verify every pending write, narrow it."""

    options: Options
    force: bool
    results: list[FunctionResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # fixes held back (or forced)

    def __call__(self, files: list[FixedFile]) -> None:
        works: list[tuple[FixedFile, Work]] = []
        paths = {
            f.pending.task.display: f.pending.task.path
            for f in files
            if f.pending is not None and f.pending.task.path is not None
        }
        read = caller_reader(paths)
        for fixed in files:
            pending = fixed.pending
            if pending is None or pending.task.path is None:
                continue
            if is_notebook(pending.task.path):
                # A notebook cannot be imported: its fixes are written as plain --fix would.
                self.notes.append(f"{fixed.path}: notebooks are not verified")
                continue
            task = pending.task
            # The original's findings tell a finding left unfixed from one a fix brought in.
            before = lint_text(
                pending.decoded.text, task.display, task.codes, task.rule_options,
                inbound=task.inbound,
            )  # fmt: skip
            plan = plan_module(
                fixed.path,
                pending.decoded.text,
                pending.text,
                fixed.applied,
                remaining=fixed.remaining,
                originals=before.diagnostics,
                inbound=task.inbound,
                read_caller=read,
            )
            works.append((fixed, Work(plan, Path(task.path))))
        self.results = verify([w for _, w in works], self.options)
        for fixed, work in works:
            mine = [r for r in self.results if r.path == work.plan.path]
            note = apply_results(fixed, work.plan, mine, self.force)
            if note:
                self.notes.append(note)


@dataclass
class VerifyRun:
    """What `jitlint verify` found."""

    results: list[FunctionResult]
    applied: list  # fixes that were verified in memory (nothing is written)
    findings: list  # the findings of the original files
    errors: list[str]


def run_verify(
    tasks: list[Task], options: Options, unsafe: bool, fixable: Collection[str]
) -> VerifyRun:
    """`jitlint verify`: every function with a finding or a fix, and the findings."""
    works, applied, findings, errors = [], [], [], []
    inbound = project_inbound(tasks, options.jobs, options.root)  # as `jitlint check` sees them
    read = caller_reader({t.display: t.path for t in tasks if t.path is not None})
    for task in tasks:
        if task.path is None:
            errors.append("jitlint verify: stdin is not supported; name the files")
            continue
        if is_notebook(task.path):
            continue  # a notebook cannot be imported, so nothing in it can be called
        try:  # a regular file, boundedly: a FIFO or a link to a device is no module
            data = task.source
            if data is None:
                data = read_regular_file(task.path, task.max_file_size)
            text = decode_source(data).text
        except TooLarge:
            errors.append(f"{task.display}: over the size limit; not verified")
            continue
        except (Unreadable, DecodeProblem) as exc:
            message = str(exc)
            if not message.startswith("cannot read"):
                message = f"cannot read: {message}"
            errors.append(f"{task.display}: {message}")
            continue
        calls = inbound.get(task.display)
        original = lint_text(text, task.display, task.codes, task.rule_options, inbound=calls)
        errors.extend(original.errors)
        if not original.diagnostics:
            continue
        outcome = fix_text(
            text,
            task.display,
            task.codes,
            task.rule_options,
            unsafe=unsafe,
            fixable=fixable,
            inbound=calls,
        )
        if any(d.code == "JIT001" for d in original.diagnostics):
            continue  # nothing to import or compile in a file that does not parse
        plan: ModulePlan = plan_module(
            task.display,
            text,
            outcome.source,
            outcome.applied,
            original.diagnostics,
            remaining=outcome.remaining,
            inbound=calls,
            read_caller=read,
        )
        works.append(Work(plan, Path(task.path)))
        applied.extend(outcome.applied)
        findings.extend(original.diagnostics)
    return VerifyRun(verify(works, options), applied, findings, errors)
