"""A fix for `static_argnums` of a flax lifted transformation that forgot the module.

`nn.checkpoint(Block, static_argnums=(1,))` counts the module itself as argument 0, so for
`Block.__call__(self, x, deterministic)` the number 1 names `x`, and `deterministic` stays
traced. When a traced parameter sits exactly one position after a number the spec lists,
the numbers were counted without `self`: the fix shifts each by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import Value
from jitlint.model.jax.frameworks import linen

if TYPE_CHECKING:
    from jitlint.model.context import FileContext


def lifted_argnums_fix(
    ctx: FileContext, value: Value, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """`value` is a parameter of the method `path` leads into, traced because a lifted
    transformation of this file passes it a tracer."""
    why = value.why
    if not why or why[0] != "body" or why[2] not in linen.LIFTED:
        return None
    name = why[1]
    method = next((n for n in reversed(path) if type(n) is cst.FunctionDef), None)
    owner = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
    if method is None or owner is None or method.name.value != "__call__":
        return None
    positional = [p.name.value for p in (*method.params.posonly_params, *method.params.params)]
    if name not in positional:
        return None
    position = positional.index(name)
    sites = [c for c in _lifted_calls(ctx, owner.name.value) if _argnums(c) is not None]
    if len(sites) != 1:
        return None
    arg, numbers = _argnums(sites[0])  # type: ignore[misc]
    if position in numbers or position - 1 not in numbers:
        return None
    shifted = tuple(n + 1 for n in numbers)
    if max(shifted) >= len(positional):
        return None
    literal = "(" + ", ".join(map(str, shifted)) + ("," if len(shifted) == 1 else "") + ")"
    return NodeFix(
        "unsafe",
        f"count the module as argument 0: `static_argnums={literal}` makes `{name}` static "
        "(each number moves to the parameter one further on)",
        ((arg.value, literal),),
    )


def _lifted_calls(ctx: FileContext, class_name: str) -> list[cst.Call]:
    """Calls in the file of a lifted transformation whose first argument is `class_name`."""
    found: list[cst.Call] = []
    stack: list[cst.CSTNode] = [ctx.module]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if type(node) is not cst.Call or not node.args:
            continue
        first = node.args[0].value
        if type(first) is not cst.Name or first.value != class_name:
            continue
        qualnames = ctx.names.qualified_names(node.func, ctx.path_to(node))
        if qualnames and qualnames <= linen.LIFTED:
            found.append(node)
    return found


def _argnums(call: cst.Call) -> tuple[cst.Arg, tuple[int, ...]] | None:
    """The literal `static_argnums=` of `call`: the argument and its numbers."""
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value != "static_argnums":
            continue
        value = arg.value
        items = value.elements if type(value) is cst.Tuple else (cst.Element(value),)
        numbers = [e.value for e in items]
        if all(type(n) is cst.Integer for n in numbers):
            return arg, tuple(int(n.value) for n in numbers)  # type: ignore[attr-defined]
        return None
    return None
