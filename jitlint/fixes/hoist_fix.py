"""Hoist a `jax.jit(...)` built inside a loop to a new assignment just before the loop.

`for b in bs: p = jax.jit(partial(loss, s=2.0))(p, b)` becomes
`loss_jit = jax.jit(partial(loss, s=2.0))` above the loop and `p = loss_jit(p, b)` in it.
Offered only when nothing the jit expression reads (a lambda's free names included: the
lambda is traced once, at the first call) is bound or visibly mutated anywhere in the loop,
and only out of plain loop/`if` nesting: never out of a `try`, `with`, class body or
comprehension. The loop to hoist above is the outermost one that allows it, so one fix
leaves no loop around the compile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.python.uses import changed_in, free_reads, params_of
from jitlint.python.walker import descendants

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# Moving code out of these changes which handler, context or scope it runs under.
_BARRIERS = (
    cst.Try,
    cst.TryStar,
    cst.With,
    cst.ClassDef,
    cst.FunctionDef,
    cst.Lambda,
    cst.Match,
    *_COMPREHENSIONS,
)

_BARRIER_NAMES = {
    cst.Try: "a `try`",
    cst.TryStar: "a `try`",
    cst.With: "a `with`",
    cst.ClassDef: "a class body",
    cst.FunctionDef: "a function",
    cst.Lambda: "a lambda",
    cst.Match: "a `match`",
}


def hoist_fix(
    ctx: FileContext, call: cst.Call, path: Sequence[cst.CSTNode], taken: set[str]
) -> NodeFix | None:
    """The fix for `call` (a `jax.jit(...)` application built in a loop); `path` ends at it.
    `taken` holds the names in use (see `names_in`); the new name is added to it, so fixes
    applied in the same pass never pick the same one."""
    found = hoist_fix_or_reason(ctx, call, path, taken)
    return found if isinstance(found, NodeFix) else None


def hoist_fix_or_reason(
    ctx: FileContext, call: cst.Call, path: Sequence[cst.CSTNode], taken: set[str]
) -> NodeFix | str:
    """As `hoist_fix`, or why the jit cannot leave the loop (for the finding's help)."""
    reads = free_reads(call)
    if reads is None:
        return "it contains `await`, `yield` or `:=`, which cannot move"
    found = _outermost_loop(path, reads)
    if found is None:
        return _why_it_stays(path, reads)
    loop, depth = found
    header = _header(ctx.module, loop)
    if header is None or type(path[depth - 1]) not in (cst.IndentedBlock, cst.Module):
        return "the loop's header or its block cannot take a statement before it"
    name = fresh_name(base_name(call, path), taken)
    code = ctx.module.code_for_node
    text = f"{name} = {code(call)}{ctx.module.default_newline}{_indent(ctx.module, path[:depth])}"
    return NodeFix(
        "unsafe",
        f"build the jitted function once, as `{name}` before the loop",
        ((call, name), (header[0], text + header[1])),
    )


def _why_it_stays(path: Sequence[cst.CSTNode], reads: set[str]) -> str:
    """Why no loop around the end of `path` can be left (see `_outermost_loop`)."""
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        if isinstance(node, _BARRIERS):
            kind = _BARRIER_NAMES.get(type(node), "comprehension")
            return f"it is inside {kind} within the loop, which it would leave"
        if isinstance(node, cst.For | cst.While) and child is node.body:
            names = ", ".join(f"`{n}`" for n in sorted(reads & changed_in(node)))
            return (
                f"it reads {names}, which the loop changes: built once, it would keep the "
                "first value (jit traces a function once per shape)"
            )
    return "no loop around it can be left"


def _outermost_loop(
    path: Sequence[cst.CSTNode], reads: set[str]
) -> tuple[cst.For | cst.While, int] | None:
    """The outermost loop around the end of `path` that the expression can leave: reached
    through no barrier, and binding none of `reads`. Also its index in `path`."""
    best = None
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        if isinstance(node, _BARRIERS):
            break
        if isinstance(node, cst.For | cst.While) and child is node.body:
            if reads & changed_in(node):
                break
            best = (node, index)
    return best


def _header(module: cst.Module, loop: cst.For | cst.While) -> tuple[object, str] | None:
    """A span from the loop's first keyword to the end of its target (or test), and the text
    that rewrites it unchanged. The new statement goes in front of that text."""
    code = module.code_for_node
    if isinstance(loop, cst.For):
        prefix = code(loop.asynchronous) if loop.asynchronous is not None else ""
        head, rest = f"{prefix}for{code(loop.whitespace_after_for)}", loop.target
    else:
        head, rest = f"while{code(loop.whitespace_after_while)}", loop.test
    text = code(rest)
    # The span ends where the node's own text ends, before its closing parentheses.
    closing = "".join(code(p) for p in getattr(rest, "rpar", ()))
    if closing:
        if not text.endswith(closing):
            return None
        text = text[: -len(closing)]
    return (loop, rest), head + text


def _indent(module: cst.Module, path: Sequence[cst.CSTNode]) -> str:
    return "".join(
        (node.indent if node.indent is not None else module.default_indent)
        for node in path
        if isinstance(node, cst.IndentedBlock)
    )


def base_name(call: cst.Call, path: Sequence[cst.CSTNode]) -> str:
    """A readable name: the variable the jitted function was assigned to, else the function
    being jitted (`step`, `self.step`, `partial(step, ...)`, `vmap(step)`)."""
    parent = path[-2] if len(path) >= 2 else None
    if isinstance(parent, cst.Assign) and isinstance(parent.targets[0].target, cst.Name):
        return f"{parent.targets[0].target.value}_jit"
    expr: cst.BaseExpression = call.args[0].value
    while isinstance(expr, cst.Call) and expr.args:
        expr = expr.args[0].value
    if isinstance(expr, cst.Name | cst.Attribute):
        leaf = expr.value if isinstance(expr, cst.Name) else expr.attr.value
        return f"{leaf.lstrip('_')}_jit" if leaf.strip("_") else "jitted"
    return "jitted"


def names_in(module: cst.Module) -> set[str]:
    """Every name the module spells anywhere (attributes and keywords too: a superset)."""
    return {n.value for n in descendants(module) if isinstance(n, cst.Name)}


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, ...: the first not in `taken`, which it joins."""
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}_{number}"
    taken.add(name)
    return name


def hoist_creation_fix_or_reason(
    ctx: FileContext, call: cst.Call, path: Sequence[cst.CSTNode]
) -> NodeFix | str:
    """`name = Ctor(...)` alone on a line of a module-level function's own block (a
    tf.Variable, optimizer or layer made on every trace) moved above the function, so it is
    created once when the module runs; the line left behind says where it went. Only when
    the constructor reads nothing the function binds, `name` is bound once in the function
    and appears nowhere else in the module. Unsafe: the object is now shared by every call
    (a variable keeps its value between calls instead of restarting from its initial one)."""
    if len(path) < 6 or type(path[0]) is not cst.Module or type(path[1]) is not cst.FunctionDef:
        return "it is not a statement of a module-level function's own block"
    func, block, line, assign = path[1], path[2], path[3], path[4]
    if type(block) is not cst.IndentedBlock or type(line) is not cst.SimpleStatementLine:
        return "it is inside a loop, `with` or condition of the function"
    if len(line.body) != 1 or type(assign) is not cst.Assign or assign.value is not path[5]:
        return "it is not a plain `name = ...` statement"
    if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
        return "it is not assigned to one name"
    if len(block.body) < 2 or func.asynchronous is not None:
        return "the function's block would be left empty"
    name = assign.targets[0].target.value
    bound = {p.name.value for p in params_of(func.params)}
    targets = [
        n
        for n in descendants(func.body)
        if isinstance(n, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For)
        for t in [n.target]
        if isinstance(t, cst.Name)
    ]
    bound |= {t.target.value for t in targets}  # type: ignore[attr-defined]
    bound |= _bound_in_body(func)
    reads = free_reads(call)
    if reads is None or reads & bound:
        return "its arguments read values of the function (parameters or locals)"
    if sum(1 for t in targets if t.target.value == name) != 1:  # type: ignore[attr-defined]
        return f"`{name}` is assigned more than once in the function"
    elsewhere = {
        n.value
        for statement in ctx.module.body
        if statement is not func
        for n in descendants(statement)
        if isinstance(n, cst.Name)
    }
    if name in elsewhere:
        return f"`{name}` is also a name elsewhere in the module"
    code = ctx.module.code_for_node
    statement = f"{name} = {code(call)}"
    if "\n" in statement:
        return "the constructor call spans several lines"
    newline = ctx.module.default_newline
    above = f"{statement}{newline}{newline}{newline}"
    if func.decorators:
        first = func.decorators[0]
        start: tuple[cst.CSTNode, str] = (first, f"{above}@{code(first.decorator)}")
    else:
        start = ((func, func.name), f"{above}def{code(func.whitespace_after_def)}{func.name.value}")  # type: ignore[assignment]
    return NodeFix(
        "unsafe",
        f"create `{name}` once, at module level above `{func.name.value}` (every call now "
        "shares it)",
        ((line, f"# `{name}` is created once, above `{func.name.value}`"), start),  # type: ignore[arg-type]
    )


def _bound_in_body(func: cst.FunctionDef) -> set[str]:
    """Names bound by `with ... as`, imports, nested defs and classes, and except clauses."""
    found: set[str] = set()
    for node in descendants(func.body):
        if (isinstance(node, cst.AsName) and isinstance(node.name, cst.Name)) or isinstance(
            node, cst.FunctionDef | cst.ClassDef
        ):
            found.add(node.name.value)
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            found.add(node.target.value)
    return found
