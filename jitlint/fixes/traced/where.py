"""Rewrite a value-selecting branch on a traced condition into `jnp.where`.

Handles `A if c else B`, `if c: return A` / `else: return B`, `if c: return A` followed
directly by `return B`, and `if c: y = A` / `else: y = B`. `jnp.where` evaluates both values,
so the fix is unsafe: a branch that raises, prints or is expensive now always runs, and values
broadcast to one shape. `branches` finds those shapes; conds.py shares it.

Comments in the rewritten statements (`if c:  # why`, a comment above the `return`) are kept
on their own lines above the new statement. Where no rewrite is made, the builders say why
(a string), for the finding's `help`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.context import FileContext

MESSAGE = "select the value with `jnp.where` (both branches are evaluated)"
# Values that are certainly not arrays: no select or cond can choose between them.
_NOT_ARRAYS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Lambda)
# Containers of values: `lax.cond` returns them (pytrees); `jnp.where` would not.
CONTAINERS = (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp)


@dataclass(frozen=True)
class Branches:
    """A two-way choice of one value: `prefix` + choice(test, then, other) replaces `span`."""

    span: cst.CSTNode | tuple[cst.CSTNode, cst.CSTNode]
    test: cst.BaseExpression
    then: cst.BaseExpression
    other: cst.BaseExpression
    prefix: str  # "", "return " or "name = "
    target: str | None = None  # the assigned name, for `if c: y = A` / `else: y = B`
    comments: tuple[str, ...] = ()  # comments inside `span`, kept above the new statement
    indent: str = ""  # of the statement, for the lines after the first


def branches(ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Branches | str:
    """The value choice `owner` makes, if it is one of the shapes above (`path` ends at it);
    otherwise why it is not."""
    if type(owner) is cst.IfExp:
        return Branches(owner, owner.test, owner.body, owner.orelse, "")
    if type(owner) is not cst.If:
        return "only `if` statements and conditional expressions are rewritten"
    parent = path[-2] if len(path) >= 2 else None
    if type(parent) is cst.If and parent.orelse is owner and _single_return(parent.body) is None:
        # Its rewrite would run also where the `if` branch ran.
        return "an `elif` whose `if` branch does more than `return` cannot be rewritten alone"
    then = _single_return(owner.body)
    indent = indent_of(ctx, path)
    if owner.orelse is not None:
        if type(owner.orelse) is not cst.Else:
            return "an `elif` chain is rewritten from its last `elif` up, one pass each"
        comments = _comments(_parts(owner))
        if then is not None:
            other = _single_return(owner.orelse.body)
            if other is None:
                return "the `else` branch is not a single `return` of a value"
            return Branches(owner, owner.test, then, other, "return ", None, comments, indent)
        assigned = _single_assign(owner.body)
        other_assigned = _single_assign(owner.orelse.body)
        if assigned is None or other_assigned is None or assigned[0] != other_assigned[0]:
            return (
                "the branches are not each a single `return`, or a single assignment to the "
                "same name"
            )
        name = assigned[0]
        return Branches(
            owner, owner.test, assigned[1], other_assigned[1], f"{name} = ", name, comments, indent
        )
    following = _next_statement(owner, path)
    if then is None:
        return "the `if` branch is not a single `return` of a value"
    other = _return_value(following) if following is not None else None
    if following is None or other is None:
        return "the `if` is not followed directly by a `return` of the other value"
    comments = _comments([*_parts(owner), following])
    return Branches((owner, following), owner.test, then, other, "return ", None, comments, indent)


def value_problem(found: Branches) -> str | None:
    """Why neither `jnp.where` nor `lax.cond` can choose these values, if they cannot."""
    for value in (found.then, found.other):
        if (
            isinstance(value, _NOT_ARRAYS)
            or (type(value) is cst.Name and value.value == "None")
            or _builds_non_array(value)
        ):
            return (
                "a branch is not an array (a string, `None`, a set or a function): `jnp.where` and "
                "`lax.cond` choose arrays; make the condition static or move the choice out of "
                "the traced code"
            )
    return None


def _builds_non_array(value: cst.BaseExpression) -> bool:
    """A set (no pytree holds one) or a string, displayed or built by its builtin."""
    if isinstance(value, cst.Set | cst.SetComp):
        return True
    func = value.func if type(value) is cst.Call else None  # type: ignore[attr-defined]
    return type(func) is cst.Name and func.value in ("set", "frozenset", "str")


def needs_cond(found: Branches) -> bool:
    """A branch is a container (a tuple, dict or list of values): only `lax.cond` returns it."""
    return any(isinstance(v, (cst.Tuple, *CONTAINERS)) for v in (found.then, found.other))


def where_of(ctx: FileContext, found: Branches) -> NodeFix | str:
    """`jnp.where(test, then, other)` in place of the choice, or why not."""
    problem = value_problem(found)
    if problem is not None:
        return problem
    if needs_cond(found):
        return "a branch is a tuple or container: `jnp.where` would stack it into one array"
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    code = ctx.module.code_for_node
    text = f"{found.prefix}{jnp}.where({code(found.test)}, {code(found.then)}, {code(found.other)})"
    if "\n" in text or "\r" in text:
        return "an operand spans several lines"
    return NodeFix(
        "unsafe",
        MESSAGE,
        ((found.span, with_comments(found, text)),),  # type: ignore[arg-type]
        (imported,) if imported else (),
    )


def with_comments(found: Branches, text: str) -> str:
    """The new statement with the comments it replaces on their own lines above it."""
    if not found.comments:
        return text
    return f"\n{found.indent}".join([*found.comments, text])


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


def indent_of(ctx: FileContext, path: Sequence[cst.CSTNode]) -> str:
    """The indentation of the statement `path` ends at: its enclosing blocks' indents."""
    default = ctx.module.default_indent
    return "".join(
        (node.indent if node.indent is not None else default)  # type: ignore[attr-defined]
        for node in path[:-1]
        if type(node) is cst.IndentedBlock
    )


def _comments(parts: Sequence[cst.CSTNode]) -> tuple[str, ...]:
    """Every comment inside `parts`, in source order."""
    found: list[str] = []

    def walk(node: cst.CSTNode) -> None:
        if type(node) is cst.Comment:
            found.append(node.value)  # type: ignore[attr-defined]
            return
        for child in node.children:
            walk(child)

    for part in parts:
        walk(part)
    return tuple(found)


def _parts(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """An `if`'s own text: its test and branches, not the comment lines above it (those
    stay where they are)."""
    if type(statement) is cst.If:
        parts: list[cst.CSTNode] = [statement.test, statement.body]
        if statement.orelse is not None:
            parts.append(statement.orelse)
        return parts
    return [statement]


def names_in(node: cst.CSTNode) -> set[str]:
    """Every name written anywhere below `node`."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            found.add(current.value)  # type: ignore[attr-defined]
        stack.extend(current.children)
    return found
