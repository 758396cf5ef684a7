"""Rewrite a value-selecting branch on a traced condition into `jnp.where`.

Handles `A if c else B`, `if c: return A` / `else: return B`, and `if c: return A` followed
directly by `return B`. `jnp.where` evaluates both values, so the fix is unsafe: a branch
that raises, prints or is expensive now always runs, and values broadcast to one shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.rules.base import FileContext, NodeFix

MESSAGE = "select the value with `jnp.where` (both branches are evaluated)"


def where_fix(ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode]) -> NodeFix | None:
    """The fix for `owner` (an IfExp or an If), whose test is traced; `path` ends at it."""
    if type(owner) is cst.IfExp:
        return _fix(ctx, owner, owner.test, owner.body, owner.orelse, path)
    if type(owner) is not cst.If or _has_comment(ctx, owner):
        return None  # comments inside would be lost
    then = _single_return(owner.body)
    if then is None:
        return None
    if owner.orelse is not None:
        if type(owner.orelse) is not cst.Else:
            return None  # elif chains are left to a human
        other = _single_return(owner.orelse.body)
        return _fix(ctx, owner, owner.test, then, other, path, prefix="return ")
    following = _next_statement(owner, path)
    if following is None or _has_comment(ctx, following):
        return None
    other = _return_value(following)
    span = (owner, following)
    return _fix(ctx, span, owner.test, then, other, path, prefix="return ")


def _fix(
    ctx: FileContext,
    target: cst.CSTNode | tuple[cst.CSTNode, cst.CSTNode],
    test: cst.BaseExpression,
    then: cst.BaseExpression | None,
    other: cst.BaseExpression | None,
    path: Sequence[cst.CSTNode],
    prefix: str = "",
) -> NodeFix | None:
    if then is None or other is None:
        return None
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    code = ctx.module.code_for_node
    text = f"{prefix}{jnp}.where({code(test)}, {code(then)}, {code(other)})"
    if "\n" in text or "\r" in text:
        return None  # multi-line operands would need re-indenting
    return NodeFix("unsafe", MESSAGE, ((target, text),), (imported,) if imported else ())  # type: ignore[arg-type]


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
