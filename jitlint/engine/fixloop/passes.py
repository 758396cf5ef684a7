"""Fix one file's text: passes of non-overlapping fixes, re-linting between passes.

The loop stops when no applicable fix is left or after `MAX_PASSES`. Every pass's result must
parse; if one does not, the whole file is left as it was and the fault is reported with the
rules whose fixes were applied in that pass.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.edits import apply_edits, choose
from jitlint.engine.linter import lint_text
from jitlint.model.jax.crossfile.records import Received

MAX_PASSES = 10


@dataclass
class FixOutcome:
    """A text after the fix passes: the findings fixed, those left, internal errors."""

    source: str
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def applicable(
    diagnostic: Diagnostic, unsafe: bool, fixable: Collection[str] | None = None
) -> bool:
    fix = diagnostic.fix
    if fix is None or (fix.applicability == "unsafe" and not unsafe):
        return False
    return fixable is None or diagnostic.code in fixable


def fix_text(
    source: str,
    path: str,
    codes: Collection[str],
    rule_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    unsafe: bool = False,
    fixable: Collection[str] | None = None,
    inbound: Sequence[Received] | None = None,
) -> FixOutcome:
    """Fix `source` with the rules in `codes`; `fixable` limits which codes may fix.
    `inbound`: calls and applications in other files (the project pass; see `lint_text`)."""
    current = source
    applied: list[Diagnostic] = []
    errors: list[str] = []
    for _ in range(MAX_PASSES):
        result = lint_text(current, path, codes, rule_options, inbound=inbound)
        errors.extend(e for e in result.errors if e not in errors)
        todo = [d for d in result.diagnostics if applicable(d, unsafe, fixable)]
        if not todo:
            return FixOutcome(current, applied, result.diagnostics, errors)
        chosen, edits = choose(current, todo)
        candidate = apply_edits(current, edits)
        try:
            cst.parse_module(candidate)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            rules = ", ".join(sorted({d.code for d in chosen}))
            errors.append(
                f"{path}: internal error: the fixes of {rules} produced code that does not "
                "parse; the file was left unchanged (please report this as a jitlint bug)"
            )
            original = lint_text(source, path, codes, rule_options, inbound=inbound)
            return FixOutcome(source, [], original.diagnostics, errors)
        if candidate == current:
            break
        applied.extend(chosen)
        current = candidate
    final = lint_text(current, path, codes, rule_options, inbound=inbound)
    if any(applicable(d, unsafe, fixable) for d in final.diagnostics):
        errors.append(
            f"{path}: fixes did not settle after {MAX_PASSES} passes; "
            "the remaining fixable findings are reported"
        )
    return FixOutcome(current, applied, final.diagnostics, errors)
