"""A file's findings positioned: each rule's report becomes a `Diagnostic` at the lines and
columns of its node, and its `NodeFix` becomes edits. Positions cost a full codegen pass
(~1.9x a parse), so only a file with findings imports this module and pays for them."""

from __future__ import annotations

import bisect
import dataclasses
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.diagnostics import Diagnostic, Edit, Fix
from jitlint.engine.fixloop.edits import line_starts, offsets
from jitlint.rules import rule_name

if TYPE_CHECKING:
    from jitlint.engine.source import FormFeedShift
    from jitlint.fixes.node_fix import NodeFix
    from jitlint.model.context import FileContext
    from jitlint.rules.base import Report


def positioned(
    ctx: FileContext, path: str, reports: list[Report], shift: FormFeedShift | None
) -> list[Diagnostic]:
    """The reports as findings of the file at `path` (in its own columns, `shift`: before
    form feeds were cut from its indentation)."""
    module = ctx.module
    positions = ctx.positions
    starts = (module.code, line_starts(module.code)) if any(r.fix for r in reports) else None
    out = []
    for report in reports:
        where = positions[report.node]
        fix = _edits(module, positions, report.fix, starts) if report.fix is not None else None
        diagnostic = Diagnostic(
            code=report.code,
            name=rule_name(report.code),
            message=report.message,
            path=path,
            line=where.start.line,
            column=where.start.column + 1,
            end_line=where.end.line,
            end_column=where.end.column + 1,
            severity=report.severity,
            help=report.help,
            fix=fix,
            traced_by=report.traced_by,
        )
        out.append(diagnostic if shift is None else _shifted(diagnostic, shift))
    return out


def _shifted(diagnostic: Diagnostic, shift: FormFeedShift) -> Diagnostic:
    """`diagnostic`, positioned in the text before form feeds were cut from it."""
    fix = diagnostic.fix
    if fix is not None:
        edits = tuple(
            dataclasses.replace(
                e,
                column=shift.column(e.line, e.column),
                end_column=shift.column(e.end_line, e.end_column),
            )
            for e in fix.edits
        )
        fix = dataclasses.replace(fix, edits=edits)
    return dataclasses.replace(
        diagnostic,
        column=shift.column(diagnostic.line, diagnostic.column),
        end_column=shift.column(diagnostic.end_line, diagnostic.end_column),
        fix=fix,
    )


def _edits(
    module: cst.Module, positions: Any, fix: NodeFix, starts: tuple[str, list[int]] | None
) -> Fix | None:
    edits = []
    for target, text in fix.replacements:
        # A pair of nodes stands for the text from the start of the first to the end of the
        # second (e.g. two consecutive statements merged into one).
        first, last = target if type(target) is tuple else (target, target)
        begin, end = positions.get(first), positions.get(last)
        if begin is None or end is None or starts is None:
            return None
        edit = Edit(
            begin.start.line, begin.start.column + 1, end.end.line, end.end.column + 1, text
        )
        if first is last:
            edit = _with_parentheses(module, first, edit, *starts)
        edits.append(edit)
    missing = [statement for statement in fix.imports if statement not in _existing_imports(module)]
    if missing:
        line = _import_line(module, positions)
        text = "".join(f"{s}{module.default_newline}" for s in missing)
        edits.append(Edit(line, 1, line, 1, text))
    edits.sort(key=lambda e: (e.line, e.column))
    return Fix(fix.applicability, fix.message, tuple(edits))


def _with_parentheses(
    module: cst.Module, node: cst.CSTNode, edit: Edit, code: str, starts: list[int]
) -> Edit:
    """Widen `edit` over the node's own parentheses, which libcst's positions leave out but
    `code_for_node` (what fixes are rendered with) includes."""
    lpar, rpar = getattr(node, "lpar", ()), getattr(node, "rpar", ())
    if not lpar and not rpar:
        return edit
    before = "".join(module.code_for_node(p) for p in lpar)
    after = "".join(module.code_for_node(p) for p in rpar)
    start, end = offsets(code, edit, starts)
    if code[start - len(before) : start] != before or code[end : end + len(after)] != after:
        return edit
    return _edit_between(starts, start - len(before), end + len(after), edit.content)


def _edit_between(starts: list[int], start: int, end: int, content: str) -> Edit:
    def where(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    (line, column), (end_line, end_column) = where(start), where(end)
    return Edit(line, column, end_line, end_column, content)


def _existing_imports(module: cst.Module) -> set[str]:
    found = set()
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import | cst.ImportFrom):
                    found.add(module.code_for_node(small))
    return found


def _import_line(module: cst.Module, positions: Any) -> int:
    """Where new imports go: after the docstring and `from __future__` imports, else before
    the first statement (so shebangs and leading comments stay on top)."""
    line = None
    for index, statement in enumerate(module.body):
        small = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
        is_docstring = (
            index == 0
            and len(small) == 1
            and isinstance(small[0], cst.Expr)
            and isinstance(small[0].value, cst.SimpleString | cst.ConcatenatedString)
        )
        is_future = any(
            isinstance(s, cst.ImportFrom)
            and isinstance(s.module, cst.Name)
            and s.module.value == "__future__"
            for s in small
        )
        if not (is_docstring or is_future):
            return line if line is not None else positions[statement].start.line
        line = positions[statement].end.line + 1
    return line if line is not None else len(module.header) + 1
