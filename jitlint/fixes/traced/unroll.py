"""Unroll a `jax.lax.fori_loop` whose body indexes a Python list by the loop counter (JIT102).

    def body(i, h):                              def body(i, h):
        return self.blocks[i](h)                     return self.blocks[i](h)
                                        ->
    return jax.lax.fori_loop(                    return functools.reduce(
        0, len(self.blocks), body, x)                lambda _carry, _i: body(_i, _carry),
                                                     range(0, len(self.blocks)), x)

`fori_loop` passes the counter as a tracer, so `self.blocks[i]` cannot pick an item; a
Python loop over `range` passes plain ints and computes the same values. Only a body that
is a local `def` of two parameters, passed by name to a `fori_loop` call of four positional
arguments in the same function, whose bounds are int literals or `len(...)`, is rewritten.
Unsafe: the body is traced once per iteration (compile time grows with the trip count), and
Python side effects in it run once per iteration instead of once.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.context import FileContext

_FORI_LOOP = "jax.lax.fori_loop"


def _static_bound(ctx: FileContext, expr: cst.BaseExpression, path: list[cst.CSTNode]) -> bool:
    """An int literal or a `len(...)` call: a Python int whatever the arguments are."""
    if type(expr) is cst.Integer:
        return True
    if type(expr) is not cst.Call or len(expr.args) != 1:
        return False
    return ctx.names.qualified_names(expr.func, [*path, expr]) == {"builtins.len"}


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """The calls in `node`, not looking into nested functions, classes or lambdas."""
    found: list[cst.Call] = []
    stack: list[cst.CSTNode] = list(node.children)
    while stack:
        child = stack.pop()
        if type(child) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if type(child) is cst.Call:
            found.append(child)
        stack.extend(child.children)
    return found


def unrolled_fori_fix(
    ctx: FileContext, node: cst.Subscript, parents: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """The fix for `items[i]` where `i` is the counter `fori_loop` passes to the body."""
    index = node.slice[0].slice.value  # type: ignore[attr-defined]
    if type(index) is not cst.Name:
        return None
    depth = next(
        (k for k in range(len(parents) - 1, -1, -1) if type(parents[k]) is cst.FunctionDef),
        None,
    )
    if depth is None or depth < 2:
        return None
    body = parents[depth]
    params = body.params  # type: ignore[attr-defined]
    if (
        body.decorators  # type: ignore[attr-defined]
        or len(params.params) != 2
        or params.posonly_params
        or params.kwonly_params
        or params.star_arg is not cst.MaybeSentinel.DEFAULT
        or params.star_kwarg is not None
        or params.params[0].name.value != index.value
    ):
        return None
    name = body.name.value  # type: ignore[attr-defined]
    # the function (or module) whose body holds the `def`: the loop call must be there too
    outer = next((k for k in range(depth - 1, -1, -1) if type(parents[k]) is cst.FunctionDef), None)
    scope_node = parents[outer] if outer is not None else parents[0]
    scope_path = list(parents[: outer + 1]) if outer is not None else [parents[0]]
    loops = []
    for call in _calls_in(scope_node.body if outer is not None else scope_node):  # type: ignore[attr-defined]
        if ctx.names.qualified_names(call.func, [*scope_path, call]) != {_FORI_LOOP}:
            continue
        args = call.args
        if len(args) != 4 or any(a.keyword is not None or a.star for a in args):
            continue
        if type(args[2].value) is cst.Name and args[2].value.value == name:
            loops.append(call)
    if len(loops) != 1:
        return None
    loop = loops[0]
    lower, upper, _, init = (a.value for a in loop.args)
    if not (_static_bound(ctx, lower, scope_path) and _static_bound(ctx, upper, scope_path)):
        return None
    code = ctx.module.code_for_node
    parts = [code(lower), code(upper), code(init)]
    if any("\n" in p or "\r" in p for p in parts):
        return None
    functools, imported = ctx.import_name("functools", "functools")
    text = (
        f"{functools}.reduce(lambda _carry, _i: {name}(_i, _carry), "
        f"range({parts[0]}, {parts[1]}), {parts[2]})"
    )
    return NodeFix(
        "unsafe",
        f"unroll the `fori_loop` over `{name}` into a Python loop, so the counter is an int "
        "(each iteration is traced; compile time grows with the trip count)",
        ((loop, text),),
        (imported,) if imported else (),
    )
