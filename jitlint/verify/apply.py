"""What `--fix --verify` writes: a failed function's hunks are reverted (unless `--force`)."""

from __future__ import annotations

from collections import Counter

import libcst as cst

from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.runner import FixedFile
from jitlint.engine.linter import lint_text
from jitlint.verify.plan import ModulePlan
from jitlint.verify.results import FunctionResult


def narrowed_text(plan: ModulePlan, failed: set[str]) -> str:
    """The fixed text with the hunks of `failed` functions put back as they were. When every
    hunk that belongs to a function is reverted, the module-level ones (added imports) go too,
    so a file whose every fix failed is left exactly as it was."""
    owned = [h for h in plan.hunks if h.owners]
    revert = {id(h) for h in owned if set(h.owners) & failed}
    if owned and len(revert) == len(owned):
        return plan.original
    a = plan.original.splitlines(keepends=True)
    b = plan.fixed.splitlines(keepends=True)
    out: list[str] = []
    position = 0  # in the original
    for hunk in plan.hunks:
        out.extend(a[position : hunk.i1])
        out.extend(a[hunk.i1 : hunk.i2] if id(hunk) in revert else b[hunk.j1 : hunk.j2])
        position = hunk.i2
    out.extend(a[position:])
    return "".join(out)


def apply_results(
    fixed: FixedFile, plan: ModulePlan, results: list[FunctionResult], force: bool
) -> str | None:
    """Narrow `fixed.pending` to what verification allows and recount the findings; say what
    was held back."""
    pending = fixed.pending
    failed = {r.function for r in results if r.path == plan.path and r.status == "failed"}
    if pending is None or not failed:
        return None
    names = ", ".join(sorted(failed))
    if force:
        return f"{plan.path}: written with --force although {names} failed verification"
    text = narrowed_text(plan, failed)
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        text = plan.original  # a partial revert that does not parse: write nothing
    task = pending.task
    pending.text = text
    after = lint_text(text, task.display, task.codes, task.rule_options, inbound=task.inbound)
    fixed.applied = _still_applied(fixed.applied, fixed.remaining, after.diagnostics)
    fixed.remaining = after.diagnostics
    fixed.errors.extend(after.errors)
    return f"{task.display}: the fixes for {names} failed verification and were not written"


def _still_applied(
    applied: list[Diagnostic], before: list[Diagnostic], after: list[Diagnostic]
) -> list[Diagnostic]:
    """Applied fixes minus those whose findings came back when their hunks were reverted."""
    returned = Counter(d.code for d in after) - Counter(d.code for d in before)
    kept = []
    for diagnostic in reversed(applied):
        if returned[diagnostic.code] > 0:
            returned[diagnostic.code] -= 1
        else:
            kept.append(diagnostic)
    return kept[::-1]
