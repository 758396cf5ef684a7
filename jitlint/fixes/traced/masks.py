"""Rewrite a reduction of a boolean-mask selection into a masked reduction (JIT105).

`x[m].sum()`, `x[m].mean(axis=0)`, `jnp.mean(x[m])` (and `prod`) select a value-dependent
number of rows, then reduce them. The same reduction over all of `x` with `where=` keeps
every shape static:

- the mask is evidently of `x`'s own shape (`x > 0`, `~jnp.isnan(x)`): `x.mean(where=x > 0)`;
- otherwise the mask covers the leading axes of `x`, as indexing reads it, and the rewrite
  says so in general terms: the reduced axes are the mask's, and the mask is widened over
  the rest with `jnp.expand_dims` (`m.ndim` and `x.ndim` are static under jit).

Unsafe: the result is the same for finite values (an empty selection still gives `nan` for
the mean and 0 for the sum), but values outside the mask now enter the computation, so a
`nan`/`inf` there can reach the gradient (the "double where" trap).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.context import FileContext

_REDUCTIONS = frozenset(("sum", "mean", "prod"))
_ELEMENTWISE_TESTS = frozenset(
    f"jax.numpy.{n}" for n in ("isnan", "isfinite", "isinf", "isposinf", "isneginf", "signbit")
)


def masked_reduction_fix(
    ctx: FileContext, node: cst.Subscript, mask: cst.BaseExpression, parents: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """The fix for `node` (`x[mask]`) when a sum, mean or prod reduces it directly."""
    base = node.value
    if len(node.slice) != 1 or len(parents) < 2 or not _cheap(base):
        return None  # `x.at[mask]` is an update, not a selection
    parent, grand = parents[-1], parents[-2]
    if (
        type(parent) is cst.Attribute
        and parent.value is node  # type: ignore[attr-defined]
        and parent.attr.value in _REDUCTIONS  # type: ignore[attr-defined]
        and type(grand) is cst.Call
        and grand.func is parent  # type: ignore[attr-defined]
    ):
        call, name, args = grand, parent.attr.value, list(grand.args)  # type: ignore[attr-defined]
    elif type(parent) is cst.Arg and type(grand) is cst.Call and grand.args[0] is parent:  # type: ignore[attr-defined]
        if parent.keyword is not None or parent.star:  # type: ignore[attr-defined]
            return None
        names = ctx.names.qualified_names(grand.func, ctx.path_to(grand))  # type: ignore[attr-defined]
        name = next(iter(names)).removeprefix("jax.numpy.") if len(names) == 1 else ""
        if name not in _REDUCTIONS or next(iter(names)) != f"jax.numpy.{name}":
            return None
        call, args = grand, list(grand.args[1:])  # type: ignore[attr-defined]
    else:
        return None
    axis = _axis(args)
    if axis is None:
        return None
    code = ctx.module.code_for_node
    x, m = code(base), code(mask)
    if "\n" in m or "\r" in m:
        return None
    imports: tuple[str, ...] = ()
    if _same_shape(ctx, mask, x):
        where, axes = m, ""  # `x[m]` is 1-d: `axis=0` reduces all of it too
    else:
        jnp, imported = ctx.import_name("jax.numpy", "jnp")
        imports = (imported,) if imported else ()
        mp = m if type(mask) in (cst.Name, cst.Attribute, cst.Call) else f"({m})"
        where = f"{jnp}.expand_dims({m}, tuple(range({mp}.ndim, {x}.ndim)))"
        axes = "" if axis == "all" else f"axis=tuple(range({mp}.ndim)), "
    return NodeFix(
        "unsafe",
        f"reduce over all of `{x}` with `where=` the mask (the shape stays static)",
        ((call, f"{x}.{name}({axes}where={where})"),),
        imports,
    )


def _axis(args: list[cst.Arg]) -> str | None:
    """`"all"` when the reduction has no arguments, `"0"` for `axis=0` alone, else None."""
    if not args:
        return "all"
    if len(args) != 1 or args[0].star:
        return None
    arg = args[0]
    if arg.keyword is not None and arg.keyword.value != "axis":
        return None
    value = arg.value
    return "0" if type(value) is cst.Integer and value.value == "0" else None


def _cheap(expr: cst.BaseExpression) -> bool:
    """A name or a dotted attribute of one (not `x.at`), without parentheses."""
    if getattr(expr, "lpar", ()):
        return False
    kind = type(expr)
    if kind is cst.Name:
        return True
    return (
        kind is cst.Attribute
        and expr.attr.value != "at"  # type: ignore[attr-defined]
        and _cheap(expr.value)  # type: ignore[attr-defined]
    )


def _number(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        expr = expr.expression  # type: ignore[attr-defined]
    return type(expr) in (cst.Integer, cst.Float)


def _same_shape(ctx: FileContext, mask: cst.BaseExpression, x: str) -> bool:
    """The mask is an element-wise test of `x` itself (a comparison with numbers, `~`, or
    `jnp.isnan(x)` and the like)."""
    code = ctx.module.code_for_node
    kind = type(mask)
    if kind is cst.UnaryOperation and type(mask.operator) is cst.BitInvert:  # type: ignore[attr-defined]
        return _same_shape(ctx, mask.expression, x)  # type: ignore[attr-defined]
    if kind is cst.Comparison:
        operands = [mask.left, *(t.comparator for t in mask.comparisons)]  # type: ignore[attr-defined]
        return any(code(o) == x for o in operands) and all(
            code(o) == x or _number(o) for o in operands
        )
    if kind is cst.Call and len(mask.args) == 1 and mask.args[0].keyword is None:  # type: ignore[attr-defined]
        names = ctx.names.qualified_names(mask.func, ctx.path_to(mask))  # type: ignore[attr-defined]
        return bool(names) and names <= _ELEMENTWISE_TESTS and code(mask.args[0].value) == x  # type: ignore[attr-defined]
    return False
