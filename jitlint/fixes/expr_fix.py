"""Rewrites of one expression that stays an array instead of becoming a Python value.

- A chained comparison `a < x < b` on traced values becomes `(a < x) & (x < b)`: Python's
  chain is `(a < x) and (x < b)`, which converts the first link to bool; `&` is the
  element-wise `and` of the two boolean arrays. Unsafe: the middle operands are evaluated
  twice (only names, attributes and numbers are accepted there), and where the chain was
  meant as a Python bool the result is now an array.
- `float(x)` on a traced value becomes `jnp.asarray(x, dtype=float)`: a 0-d array of the
  default float dtype. Unsafe: code that needs a Python float (formatting with a spec,
  `isinstance`, JSON) still fails or behaves differently, and an array of more than one
  element is no longer rejected.
- `items[i]` on a Python list or tuple with a traced index becomes `jnp.asarray(items)[i]`,
  when every item is known to be a JAX array or a Python number: the list is stacked into
  one array, which a tracer can index. Unsafe: items of different shapes now fail at trace
  time, the stack is built on every call, and an out-of-range index is clamped instead of
  raising.
"""

from __future__ import annotations

import libcst as cst

from jitlint.engine.context import FileContext
from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import Array, Scalar, Seq, Value

_ORDERING = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


def _cheap(expr: cst.BaseExpression) -> bool:
    """Safe to evaluate twice: a name, a dotted attribute of one, or a number."""
    kind = type(expr)
    if kind in (cst.Name, cst.Integer, cst.Float):
        return True
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        return type(expr.expression) in (cst.Integer, cst.Float)  # type: ignore[attr-defined]
    return kind is cst.Attribute and _cheap(expr.value)  # type: ignore[attr-defined]


def chained_comparison_fix(module: cst.Module, node: cst.Comparison) -> NodeFix | None:
    """`a < x < b` -> `(a < x) & (x < b)`, keeping the chain's own parentheses."""
    links = node.comparisons
    if len(links) < 2 or not all(isinstance(t.operator, _ORDERING) for t in links):
        return None
    if not all(_cheap(t.comparator) for t in links[:-1]):
        return None
    code = module.code_for_node
    operands = [node.left, *(t.comparator for t in links)]
    parts = []
    for index, link in enumerate(links):
        single = cst.Comparison(
            left=operands[index],
            comparisons=[link.with_changes(comparator=operands[index + 1])],
        )
        parts.append(f"({code(single).strip()})")
    text = " & ".join(parts)
    if node.lpar:
        text = "".join(code(p) for p in node.lpar) + text + "".join(code(p) for p in node.rpar)
    if "\n" in text or "\r" in text:
        return None
    return NodeFix(
        "unsafe",
        "compare element-wise: `(a < x) & (x < b)` (the middle operand is read twice)",
        ((node, text),),
    )


def float_to_array_fix(ctx: FileContext, node: cst.Call) -> NodeFix | None:
    """`float(x)` -> `jnp.asarray(x, dtype=float)`."""
    if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return None
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    inner = ctx.module.code_for_node(node.args[0].value)
    if "\n" in inner or "\r" in inner:
        return None
    return NodeFix(
        "unsafe",
        f"keep it an array of the default float dtype: `{jnp}.asarray(x, dtype=float)`",
        ((node, f"{jnp}.asarray({inner}, dtype=float)"),),
        (imported,) if imported else (),
    )


def _stackable(value: Value) -> bool:
    if isinstance(value, Array):
        return value.jax and value.sure
    return isinstance(value, Scalar) and value.pytype in ("int", "float")


def stacked_index_fix(ctx: FileContext, node: cst.Subscript, base: Value) -> NodeFix | None:
    """`items[i]` -> `jnp.asarray(items)[i]` for a list of arrays or numbers."""
    if not isinstance(base, Seq):
        return None
    items = base.items if base.items is not None else (base.elem,)
    if not items or not all(_stackable(v) for v in items):
        return None
    code = ctx.module.code_for_node
    seq, index = code(node.value), code(node.slice[0].slice.value)  # type: ignore[attr-defined]
    if any("\n" in t or "\r" in t for t in (seq, index)):
        return None
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    return NodeFix(
        "unsafe",
        f"stack the items into one array and index it: `{jnp}.asarray({seq})[...]`",
        ((node, f"{jnp}.asarray({seq})[{index}]"),),
        (imported,) if imported else (),
    )
