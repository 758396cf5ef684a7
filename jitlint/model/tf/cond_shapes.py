"""`tf.cond` branches whose results have different shapes: under XLA the conditional's result
then gets a bounded dynamic dimension (observed on TensorFlow 2.21 XLA:CPU: the cond itself
compiles, and a later `tf.signal.fft2d` fails with 'Asked to propagate a dynamic dimension ...
which is not implemented').

Only what the source proves is reported: one branch returns a value `x` unchanged and the
other returns `x` grown by `tf.repeat`/`tf.tile`/`tf.concat`/`tf.pad` (whose size along an
axis is then not `x`'s), or the two results have static shapes the source states
(static_shapes.py) that differ along an axis: two different literal sizes, or a literal size
against what a `-1` leaves in `tf.reshape`. Branches whose shapes the model cannot compare
say nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.model.tf.api import canonical
from jitlint.model.tf.static_shapes import describe, differing_dim, static_shape

CONDS = frozenset({"tensorflow.cond", "tensorflow.compat.v1.cond"})
# The ops that return their first argument with a different size along some axis, and the
# argument that says by how much: a literal that keeps the size (1 repeat, all-ones
# multiples, zero padding) proves nothing.
_GROWERS = {
    "tensorflow.repeat": (1, "repeats"),
    "tensorflow.tile": (1, "multiples"),
    "tensorflow.pad": (1, "paddings"),
    "tensorflow.concat": (0, "values"),
}


@dataclass(frozen=True)
class BranchMismatch:
    grown: str  # the branch that changes the size, as written
    kept: str  # the branch that returns the value unchanged
    op: str  # "tf.repeat", ...; "" when the static shapes differ
    value: str  # the value's name; for static shapes, how they differ

    @property
    def detail(self) -> str:
        """How the branches differ, for a message."""
        if not self.op:
            return self.value
        return (
            f"`{self.grown}` returns `{self.value}` grown by `{self.op}`, `{self.kept}` "
            f"returns `{self.value}` as it is"
        )


def cond_mismatch(ctx, call: cst.Call, path: Sequence[cst.CSTNode]) -> BranchMismatch | None:  # type: ignore[no-untyped-def]
    """The mismatch of `call` when it is a `tf.cond` whose branches provably differ."""
    from jitlint.model.tf.model import call_argument  # the model imports this package

    if not (canonical(ctx.names.qualified_names(call.func, path)) & CONDS):
        return None
    branches = [call_argument(call, 1, "true_fn"), call_argument(call, 2, "false_fn")]
    results = []
    functions = []
    for arg in branches:
        if arg is None:
            return None
        found = ctx.tf.resolve_function(arg.value, path)
        returned = _single_return(found[0]) if found else None
        if returned is None:
            return None
        results.append((ctx.module.code_for_node(arg.value), returned))
        functions.append(found[0])  # type: ignore[index]
    for (grown_name, grown), (kept_name, kept) in (results, results[::-1]):
        if type(kept) is not cst.Name or type(grown) is not cst.Call:
            continue
        op = _growing_op(ctx, grown, kept.value, path)
        if op is not None:
            return BranchMismatch(grown_name, kept_name, op, kept.value)
    return _static_mismatch(ctx, call, path, results, functions)


def _static_mismatch(ctx, call, path, results, functions) -> BranchMismatch | None:  # type: ignore[no-untyped-def]
    """Branches whose results have static shapes that the source states and that differ."""
    shapes = []
    for (_, returned), func in zip(results, functions, strict=True):
        if type(func) is cst.Lambda:
            arg = next(a for a in call.args if a.value is func)
            shapes.append(static_shape(ctx, returned, (*path, call, arg, func)))
            continue
        body = func.body.body  # type: ignore[attr-defined]
        last = body[-1] if body else None
        if type(last) is not cst.SimpleStatementLine:
            return None
        base = ctx.tf.scope_path(func)
        shapes.append(static_shape(ctx, returned, (*base, func.body, last, last.body[-1])))
    axis = differing_dim(shapes[0], shapes[1])
    if axis is None:
        return None
    (first, _), (second, _) = results
    if axis < 0:
        how = (
            f"`{first}` returns a tensor of rank {len(shapes[0])}, `{second}` one of rank "  # type: ignore[arg-type]
            f"{len(shapes[1])}"  # type: ignore[arg-type]
        )
    else:
        how = (
            f"along axis {axis}, `{first}` returns {describe(shapes[0][axis])} and "  # type: ignore[index]
            f"`{second}` {describe(shapes[1][axis])}"  # type: ignore[index]
        )
    return BranchMismatch(first, second, "", how)


def _single_return(func: cst.CSTNode) -> cst.BaseExpression | None:
    """What `func` returns, when it is one expression: a lambda's body, or a def whose only
    `return` is its last statement."""
    if type(func) is cst.Lambda:
        return func.body  # type: ignore[attr-defined]
    body = func.body.body  # type: ignore[attr-defined]
    if not body:
        return None
    returns = [s for s in _statements(func.body) if type(s) is cst.Return]
    last = body[-1]
    if len(returns) == 1 and type(last) is cst.SimpleStatementLine and last.body[-1] is returns[0]:
        return returns[0].value  # type: ignore[attr-defined]
    return None


def _statements(block: cst.CSTNode) -> list[cst.CSTNode]:
    """Every small statement in `block`, nested blocks included, not nested functions."""
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [block]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda) and node is not block:
            continue
        if kind is cst.SimpleStatementLine:
            out.extend(node.body)  # type: ignore[attr-defined]
            continue
        stack.extend(node.children)
    return out


def _growing_op(ctx, call: cst.Call, name: str, path: Sequence[cst.CSTNode]) -> str | None:  # type: ignore[no-untyped-def]
    """`tf.repeat(name, k)`-like: the op, when `call` returns `name` with another size."""
    from jitlint.model.tf.model import call_argument

    names = canonical(ctx.names.qualified_names(call.func, path))
    if len(names) != 1 or next(iter(names)) not in _GROWERS:
        return None
    api = next(iter(names))
    position, keyword = _GROWERS[api]
    if api == "tensorflow.concat":
        values = call_argument(call, 0, "values")
        if values is None or type(values.value) not in (cst.List, cst.Tuple):
            return None
        items = [e.value for e in values.value.elements]  # type: ignore[attr-defined]
        if len(items) < 2 or not any(type(i) is cst.Name and i.value == name for i in items):
            return None
        return "tf.concat"
    first = call_argument(call, 0, "input" if api != "tensorflow.pad" else "tensor")
    amount = call_argument(call, position, keyword)
    if first is None or amount is None:
        return None
    if type(first.value) is not cst.Name or first.value.value != name:
        return None
    if _keeps_size(amount.value, api):
        return None
    return api.replace("tensorflow.", "tf.", 1)


def _keeps_size(expr: cst.BaseExpression, api: str) -> bool:
    """A literal amount that leaves the size as it is: 1 repeat, all-ones multiples, zero
    padding (nested lists)."""
    keep = "0" if api == "tensorflow.pad" else "1"
    literals: list[str] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Integer:
            literals.append(node.value)  # type: ignore[attr-defined]
        elif kind in (cst.List, cst.Tuple):
            stack.extend(e.value for e in node.elements)  # type: ignore[attr-defined]
        else:
            return False  # not a literal: may change the size
    return bool(literals) and all(v == keep for v in literals)
