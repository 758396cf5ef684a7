"""One object per iteration of a `for ... in range(...)` loop in a method, made once in
`__init__` as a list and handed out by the loop (JIT206).

`for _ in range(self.n): y = Block(self.k)(y)` becomes, at the end of `__init__`,
`self.blocks = [Block(self.k) for _ in range(self.n)]`, and in the method
`for _, block in zip(range(self.n), self.blocks): y = block(y)`: iteration i still gets an
object of its own, now the same one on every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.hoist_fix import fresh_name
from jitlint.fixes.hoisting.out import render
from jitlint.fixes.hoisting.scope import (
    LOOPS,
    barrier_between,
    enclosing_method,
    insertion_after,
    module_level_reason,
    self_attributes_reason,
)
from jitlint.fixes.node_fix import NodeFix
from jitlint.python.uses import free_reads

if TYPE_CHECKING:
    from jitlint.model.context import FileContext


def per_iteration_fix_or_reason(
    ctx: FileContext,
    call: cst.Call,
    path: Sequence[cst.CSTNode],
    names: tuple[set[str], set[str]],
    base: str,
    prefixes: tuple[str, ...],
    what: str,
) -> NodeFix | str:
    """The fix for `call` (the end of `path`), made in the body of a `for` over `range(...)`
    that is a statement of a method's own block; else why there is none."""
    why = "it is made in a loop: one object per iteration, not one in all"
    if len(path) < 7 or type(path[1]) is not cst.ClassDef or type(path[5]) is not cst.For:
        return why
    loop = path[5]
    assert isinstance(loop, cst.For)
    if path[4] is not path[3].body or path[6] is not loop.body:  # type: ignore[attr-defined]
        return why
    if any(type(n) in LOOPS for n in path[6:]) or barrier_between(path, 3) is not None:
        return why
    iterable = loop.iter
    if (
        loop.asynchronous is not None
        or type(loop.target) is not cst.Name
        or type(iterable) is not cst.Call
        or not ctx.names.resolves_to(iterable.func, path, {"builtins.range"})
    ):
        return f"{why}, and the loop is not `for name in range(...)`"
    method = enclosing_method(ctx, path, prefixes)
    if isinstance(method, str):
        return method
    for expr in (call, iterable):
        reads = free_reads(expr)
        if reads is None:
            return "it contains `await`, `yield` or `:=`, which cannot move"
        found = module_level_reason(ctx, reads, path, allowed=method.self_name, anywhere=True)
        found = found or self_attributes_reason(ctx, expr, method, reads)
        if found is not None:
            return found
    item = fresh_name(base, names[0])
    attr = fresh_name(f"{base}s", names[1])
    made = cst.ListComp(call, cst.CompFor(target=cst.Name("_"), iter=iterable))
    target = cst.Attribute(cst.Name(method.self_name), cst.Name(attr))
    line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], made)])
    code = ctx.module.code_for_node
    last = method.init.body.body[-1]  # type: ignore[union-attr]
    return NodeFix(
        "unsafe",
        f"build {what} once per iteration, in `__init__`, as the list "
        f"`{method.self_name}.{attr}`, and take the loop's one from it",
        (
            (call, item),
            (loop.target, f"{code(loop.target)}, {item}"),
            (iterable, f"zip({code(iterable)}, {method.self_name}.{attr})"),
            (insertion_after(last), render(ctx.module, line, method.indent)),  # type: ignore[arg-type]
        ),
    )
