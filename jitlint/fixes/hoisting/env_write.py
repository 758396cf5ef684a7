"""Move a late environment write above the statement that started the backend (JIT301).

The write may be a line of a function body, or sit in an `if` (without `else`) whose body is
that line alone; it moves, with its `if`, just above the first statement of the same block
that starts the backend. Only when nothing in between binds a name the moved statement
reads, the environment object it writes to is imported at module level before the block
runs, and no statement in the range holds a string spanning lines (the range is re-indented
as text) or the moved statement a comment line above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.python.walker import contains, descendants

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

_BLOCKS = (cst.Module, cst.IndentedBlock)
_STRINGS = (cst.SimpleString, cst.FormattedString)


def move_write_fix(
    ctx: FileContext, path: Sequence[cst.CSTNode], events: Sequence[cst.CSTNode], key: str
) -> NodeFix | None:
    """`path` leads from the module to the write; `events` started the backend before it."""
    found = _block_and_statement(path, events)
    if found is None:
        return None
    block, moved, indent = found
    body = list(block.body)
    first = min(i for i, s in enumerate(body) if any(contains(s, e) for e in events))
    last = body.index(moved)
    between = body[first:last]
    if any(type(line) is not cst.EmptyLine or line.comment for line in _leading(moved)):
        return None
    if _assigned(between) & _read(moved):
        return None
    if any(_multiline_string(s) for s in (*between, moved)):
        return None
    code = ctx.module.code_for_node
    moved_text = _indented(code(moved.with_changes(leading_lines=())), indent)  # type: ignore[call-arg]
    first_text = _indented(code(between[0].with_changes(leading_lines=())), indent)  # type: ignore[call-arg]
    rest = "".join(f"\n{_indented(code(s), indent, True)}" for s in between[1:])
    text = f"{moved_text}\n{indent}{first_text}{rest}"
    return NodeFix(
        "unsafe",
        f"move the `{key}` write above the first computation",
        (((between[0], moved), text),),  # type: ignore[arg-type]
    )


def _block_and_statement(
    path: Sequence[cst.CSTNode], events: Sequence[cst.CSTNode]
) -> tuple[cst.Module | cst.IndentedBlock, cst.BaseStatement, str] | None:
    """The innermost block on `path` holding every event in a statement before the one on
    `path`, that statement (the write's line, or an `if` holding only it), and its indent."""
    indent = ""
    found = None
    for index, node in enumerate(path[:-1]):
        if type(node) is cst.IndentedBlock:
            indent += node.indent if node.indent is not None else "    "
        if not isinstance(node, _BLOCKS):
            continue
        statement = path[index + 1]
        body = list(node.body)
        if statement not in body:
            continue
        where = body.index(statement)
        if all(any(contains(s, e) for s in body[:where]) for e in events):
            found = (node, statement, indent)
    if found is None:
        return None
    block, statement, indent = found
    if type(statement) is cst.If:
        inner = statement.body
        lines = inner.body if type(inner) is cst.IndentedBlock else ()
        if statement.orelse is not None or len(lines) != 1:
            return None
        statement_line = lines[0]
    else:
        statement_line = statement
    if type(statement_line) is not cst.SimpleStatementLine or len(statement_line.body) != 1:
        return None
    return block, statement, indent  # type: ignore[return-value]


def _leading(statement: cst.CSTNode) -> Sequence[cst.EmptyLine]:
    return getattr(statement, "leading_lines", ())


def _read(statement: cst.CSTNode) -> set[str]:
    return {n.value for n in descendants(statement) if type(n) is cst.Name}  # type: ignore[attr-defined]


def _assigned(statements: Sequence[cst.CSTNode]) -> set[str]:
    """Names the statements bind (assignment targets, loop and `with` targets, imports,
    definitions), or mutate through a method call (`flags.append(...)`)."""
    names: set[str] = set()
    for statement in statements:
        for node in descendants(statement):
            target = None
            if type(node) in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For):
                target = node.target  # type: ignore[attr-defined]
            elif type(node) in (cst.AsName, cst.NamedExpr):
                target = getattr(node, "name", None) or getattr(node, "target", None)
            elif type(node) in (cst.FunctionDef, cst.ClassDef, cst.ImportAlias):
                target = node.name  # type: ignore[attr-defined]
            elif type(node) is cst.Call and type(node.func) is cst.Attribute:  # type: ignore[attr-defined]
                target = node.func.value  # type: ignore[attr-defined]
            if target is not None:
                names |= _read(target)
    return names


def _multiline_string(statement: cst.CSTNode) -> bool:
    render = cst.Module(body=()).code_for_node
    return any(type(n) in _STRINGS and "\n" in render(n) for n in descendants(statement))


def _indented(text: str, indent: str, with_first: bool = False) -> str:
    """`text` (rendered without the enclosing blocks' indent) with `indent` added to every
    line but the first (and the first too when `with_first`), its final newline dropped."""
    lines = text.rstrip("\r\n").split("\n")
    out = [(indent + lines[0]) if with_first and lines[0].strip() else lines[0]]
    out += [indent + line if line.strip() else line for line in lines[1:]]
    return "\n".join(out)
