"""Rewrite a value-selecting branch on a traced condition into `jnp.where`.

Handles `A if c else B`, `if c: return A` / `else: return B`, `if c: return A` followed
directly by `return B`, and `if c: y = A` / `else: y = B`. `jnp.where` evaluates both values,
so the fix is unsafe: a branch that raises, prints or is expensive now always runs, and values
broadcast to one shape. `branches` finds those shapes; cond_fix.py shares it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.engine.context import FileContext
from jitlint.fixes.node_fix import NodeFix

MESSAGE = "select the value with `jnp.where` (both branches are evaluated)"


@dataclass(frozen=True)
class Branches:
    """A two-way choice of one value: `prefix` + choice(test, then, other) replaces `span`."""

    span: cst.CSTNode | tuple[cst.CSTNode, cst.CSTNode]
    test: cst.BaseExpression
    then: cst.BaseExpression
    other: cst.BaseExpression
    prefix: str  # "", "return " or "name = "
    target: str | None = None  # the assigned name, for `if c: y = A` / `else: y = B`


def branches(ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Branches | None:
    """The value choice `owner` makes, if it is one of the shapes above; `path` ends at it."""
    if type(owner) is cst.IfExp:
        return Branches(owner, owner.test, owner.body, owner.orelse, "")
    if type(owner) is not cst.If or _has_comment(ctx, owner):
        return None  # comments inside would be lost
    parent = path[-2] if len(path) >= 2 else None
    if type(parent) is cst.If and parent.orelse is owner and _single_return(parent.body) is None:
        return None  # an `elif`: its rewrite would run also where the `if` branch ran
    then = _single_return(owner.body)
    if owner.orelse is not None:
        if type(owner.orelse) is not cst.Else:
            return None  # elif chains are left to a human
        if then is not None:
            other = _single_return(owner.orelse.body)
            return _make(owner, owner.test, then, other, "return ")
        assigned = _single_assign(owner.body)
        other_assigned = _single_assign(owner.orelse.body)
        if assigned is None or other_assigned is None or assigned[0] != other_assigned[0]:
            return None
        name = assigned[0]
        return _make(owner, owner.test, assigned[1], other_assigned[1], f"{name} = ", name)
    following = _next_statement(owner, path)
    if then is None or following is None or _has_comment(ctx, following):
        return None
    return _make((owner, following), owner.test, then, _return_value(following), "return ")


def _make(
    span: cst.CSTNode | tuple[cst.CSTNode, cst.CSTNode],
    test: cst.BaseExpression,
    then: cst.BaseExpression | None,
    other: cst.BaseExpression | None,
    prefix: str,
    target: str | None = None,
) -> Branches | None:
    if then is None or other is None:
        return None
    return Branches(span, test, then, other, prefix, target)


def where_of(ctx: FileContext, found: Branches) -> NodeFix | None:
    """`jnp.where(test, then, other)` in place of the choice."""
    if any(_bare_tuple(v) for v in (found.then, found.other)):
        return None  # `return a, b`: jnp.where would stack the tuple into one array
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    code = ctx.module.code_for_node
    text = f"{found.prefix}{jnp}.where({code(found.test)}, {code(found.then)}, {code(found.other)})"
    if "\n" in text or "\r" in text:
        return None  # multi-line operands would need re-indenting
    return NodeFix("unsafe", MESSAGE, ((found.span, text),), (imported,) if imported else ())  # type: ignore[arg-type]


def _bare_tuple(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Tuple and not expr.lpar  # type: ignore[attr-defined]


def _single_assign(block: cst.BaseSuite) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) when the block is exactly `name = value`."""
    body = getattr(block, "body", ())
    if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1:
        return None
    small = body[0].body[0]
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    return (target.value, small.value) if type(target) is cst.Name else None


def _single_return(block: cst.BaseSuite) -> cst.BaseExpression | None:
    body = getattr(block, "body", ())
    if len(body) != 1:
        return None
    return _return_value(body[0])


def _return_value(statement: cst.CSTNode) -> cst.BaseExpression | None:
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if type(small) is not cst.Return or small.value is None:
        return None
    return small.value


def _next_statement(node: cst.CSTNode, path: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    """The statement right after `node` in its block, if any."""
    parent = path[-2] if len(path) >= 2 else None
    body = getattr(parent, "body", None)
    if not isinstance(body, tuple | list):
        return None
    for index, statement in enumerate(body):
        if statement is node:
            return body[index + 1] if index + 1 < len(body) else None
    return None


def _has_comment(ctx: FileContext, statement: cst.CSTNode) -> bool:
    """A comment within the statement or on the lines leading to it (all would be replaced);
    for the first statement, the lines above it stay, so only its own text counts."""
    return "#" in ctx.module.code_for_node(statement) and any(
        "#" in ctx.module.code_for_node(part) for part in _parts(statement)
    )


def _parts(statement: cst.CSTNode) -> list[cst.CSTNode]:
    if type(statement) is cst.If:
        parts: list[cst.CSTNode] = [statement.test, statement.body]
        if statement.orelse is not None:
            parts.append(statement.orelse)
        return parts
    return [statement]
