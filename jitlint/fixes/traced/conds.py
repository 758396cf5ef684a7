"""Choose the rewrite for a branch on a traced condition: `lax.cond` or `jnp.where`.

An `if` statement whose branches are a single `return` each (or `if c: return A` then
`return B`), or a single assignment to the same name, becomes
`return lax.cond(c, lambda: A, lambda: B)` (`y = lax.cond(...)`) when a branch is a
computation rather than a value: it calls something other than a `jax.numpy` function, a
builtin or a method of a traced array (`f(x)`, `model.apply(p, x)`, `jax.nn.relu(x)`). Then
only the taken branch runs and is differentiated, which `jnp.where` would not do. Everything
else (plain values, array math, any conditional expression) stays with `jnp.where`, and so
does a branch that is a bare literal: `lax.cond` needs both branches to have one shape and
dtype, and `0.0` rarely matches the other branch's shape.

A branch that is a container (a tuple, dict or list display) also gets `lax.cond`, which
returns pytrees: `jnp.where` would stack it into one array.

No rewrite at all when a branch or the test has a Python side effect the analysis can see
(`print`, `list.append`, logging, the clock, Python/NumPy random numbers, `:=`, `yield`):
both rewrites trace both branches, so it would run for the branch not taken. Nor when the
test uses `and`/`or`/`not` (still a bool conversion inside the rewrite), the assigned
name is `global`/`nonlocal`, or a branch is not an array at all (a string, `None`, a lambda).
`branch_fix_or_reason` says which, for the finding's help.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.fixes.traced.where import (
    Branches,
    branches,
    needs_cond,
    value_problem,
    where_of,
    with_comments,
)
from jitlint.model.context import FileContext
from jitlint.model.domain.values import STATIC, TRACED
from jitlint.model.jax.tracing import FunctionTrace
from jitlint.python.builtins_facts import MUTATING_METHODS
from jitlint.python.walker import descendants

MESSAGE = "branch with `lax.cond` (both branches are traced; they must return one type)"
# Builtins that act on the world, or whose meaning changes inside a lambda.
_EFFECT_BUILTINS = {
    f"builtins.{n}"
    for n in (
        *("print", "input", "open", "exec", "eval", "breakpoint", "next"),
        *("setattr", "delattr", "super", "locals", "vars", "globals"),
    )
}
_EFFECT_PREFIXES = ("time.", "random.", "numpy.random.", "logging.", "os.", "sys.")
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
_ARRAY_MATH = ("jax.numpy.", "builtins.")
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def branch_fix(
    ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode], trace: FunctionTrace
) -> NodeFix | None:
    """The rewrite for `owner` (an If or IfExp with a traced test); `path` ends at it."""
    found = branch_fix_or_reason(ctx, owner, path, trace)
    return found if isinstance(found, NodeFix) else None


def branch_fix_or_reason(
    ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode], trace: FunctionTrace
) -> NodeFix | str:
    """The rewrite for `owner`, or why there is none (for the finding's help)."""
    found = branches(ctx, owner, path)
    if isinstance(found, str):
        return found
    return choose_rewrite(ctx, owner, found, trace)


def choose_rewrite(
    ctx: FileContext, owner: cst.CSTNode, found: Branches, trace: FunctionTrace
) -> NodeFix | str:
    """`lax.cond` or `jnp.where` for a choice `branches` (or guards.py) found, or why
    neither applies."""
    parts = (found.test, found.then, found.other)
    if any(has_effect(ctx, trace, part) for part in parts):
        return (
            "the condition or a branch has a Python side effect, which a rewrite would run "
            "for the branch not taken too"
        )
    if _converts_to_bool(trace, found.test):
        return "the condition itself converts a tracer to bool (`and`/`or`/`not`)"
    if found.target is not None and _declared_outside(ctx, trace, found.target):
        return f"`{found.target}` is global or nonlocal: the traced value would leak out"
    problem = value_problem(found)
    if problem is not None:
        return problem
    if needs_cond(found) or (type(owner) is cst.If and _is_computation(ctx, trace, found)):
        return _cond(ctx, found)
    return where_of(ctx, found)


def _cond(ctx: FileContext, found: Branches) -> NodeFix | str:
    return _lambda_cond(ctx, found, ("jax.lax", "lax"), MESSAGE)


def _lambda_cond(
    ctx: FileContext, found: Branches, module: tuple[str, str], message: str
) -> NodeFix | str:
    """`<module>.cond(test, lambda: then, lambda: other)` in place of the choice: `lax.cond`
    or `tf.cond`, whose branches are both lambdas of no argument."""
    alias, imported = ctx.import_name(*module)
    code = ctx.module.code_for_node
    then, other = (
        f"({code(v)})" if type(v) is cst.Tuple and not v.lpar else code(v)  # type: ignore[attr-defined]
        for v in (found.then, found.other)
    )
    text = f"{found.prefix}{alias}.cond({code(found.test)}, lambda: {then}, lambda: {other})"
    if "\n" in text or "\r" in text:
        return "an operand spans several lines"
    return NodeFix(
        "unsafe",
        message,
        ((found.span, with_comments(found, text)),),  # type: ignore[arg-type]
        (imported,) if imported else (),
    )


def _converts_to_bool(trace: FunctionTrace, test: cst.BaseExpression) -> bool:
    """Whether `test` itself turns a possibly traced value into a bool: the left operand of
    `and`/`or` (the last operand is returned as it is), or the operand of `not`."""
    for node in descendants(test):
        operand = None
        if type(node) is cst.BooleanOperation:
            operand = node.left  # type: ignore[attr-defined]
        elif type(node) is cst.UnaryOperation and type(node.operator) is cst.Not:  # type: ignore[attr-defined]
            operand = node.expression  # type: ignore[attr-defined]
        if operand is not None and trace.value(operand).kind != STATIC:
            return True
    return False


def _is_computation(ctx: FileContext, trace: FunctionTrace, found: Branches) -> bool:
    """A branch calls a function that is not array math, and neither is a bare literal."""
    values = (found.then, found.other)
    if any(_is_literal(v) for v in values):
        return False
    for value in values:
        for node in descendants(value):
            if type(node) is not cst.Call:
                continue
            func = node.func  # type: ignore[attr-defined]
            if type(func) is cst.Attribute and trace.value(func.value).traced:
                continue  # a method of a traced array (or pytree): `x.sum()`
            names = ctx.tracing.qualified(trace, func)
            if not names or not all(n.startswith(_ARRAY_MATH) for n in names):
                return True
    return False


def _is_literal(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.UnaryOperation:
        expr = expr.expression  # type: ignore[attr-defined]
    if type(expr) is cst.Name:
        return expr.value in ("True", "False", "None")  # type: ignore[attr-defined]
    return isinstance(expr, _LITERALS)


def has_effect(ctx: FileContext, trace: FunctionTrace, expr: cst.CSTNode) -> bool:
    """Whether `expr` has a Python side effect the analysis sees (a print, an append...)."""
    for node in descendants(expr):
        kind = type(node)
        if kind in (cst.NamedExpr, cst.Yield, cst.Await):
            return True
        if kind is not cst.Call:
            continue
        func = node.func  # type: ignore[attr-defined]
        if type(func) is cst.Attribute:
            if trace.value(func.value).kind == TRACED:
                continue  # array methods return new arrays (a pytree's `update` does not)
            if func.attr.value in MUTATING_METHODS or func.attr.value in _LOG_METHODS:
                return True
        names = ctx.tracing.qualified(trace, func)
        if any(n in _EFFECT_BUILTINS or n.startswith(_EFFECT_PREFIXES) for n in names):
            return True
    return False


def _declared_outside(ctx: FileContext, trace: FunctionTrace, name: str) -> bool:
    func = trace.func
    if type(func) is not cst.FunctionDef:
        return False
    scope = ctx.names.scope(func)  # type: ignore[arg-type]
    return name in scope.declared_global or name in scope.declared_nonlocal


TF_MESSAGE = (
    "branch with `tf.cond` (both branches are traced into the graph; they must return "
    "tensors of one dtype and structure)"
)


def tf_cond_fix_or_reason(
    ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode]
) -> NodeFix | str:
    """`tf.cond(c, lambda: A, lambda: B)` for an `if` on a symbolic tensor in graph code that
    autograph does not convert (a Keras 3 `call`, `autograph=False`); or why not. Besides the
    shapes `branches` knows, `if c: y = A` with no `else` keeps `y` in the other branch."""
    found = _tf_branches(ctx, owner, path)
    if isinstance(found, str):
        return found
    return tf_cond_of(ctx, found)


def tf_cond_of(ctx: FileContext, found: Branches) -> NodeFix | str:
    """`tf.cond` for a choice `_tf_branches` (or guards.py) found, or why not."""
    if any(type(n) in (cst.BooleanOperation, cst.UnaryOperation) for n in descendants(found.test)):
        return "the condition uses `and`/`or`/`not`, which converts a tensor to bool itself"
    for part in (found.test, found.then, found.other):
        for node in descendants(part):
            if type(node) is cst.Call and _python_effect(node):
                return (
                    "a branch has a Python side effect, which tracing both branches would run "
                    "for the branch not taken too"
                )
    problem = value_problem(found)
    if problem is not None:
        return problem.replace("`jnp.where` and `lax.cond` choose", "`tf.cond` chooses")
    return _lambda_cond(ctx, found, ("tensorflow", "tf"), TF_MESSAGE)


def _tf_branches(
    ctx: FileContext, owner: cst.CSTNode, path: Sequence[cst.CSTNode]
) -> Branches | str:
    if type(owner) is cst.If and owner.orelse is None:
        body = owner.body
        statements = body.body if type(body) is cst.IndentedBlock else ()
        if len(statements) == 1 and type(statements[0]) is cst.SimpleStatementLine:
            line = statements[0]
            assign = line.body[0] if len(line.body) == 1 else None
            if (
                type(assign) is cst.Assign
                and len(assign.targets) == 1
                and type(assign.targets[0].target) is cst.Name
            ):
                name = assign.targets[0].target.value
                if "#" in ctx.module.code_for_node(owner):
                    return "a comment in the `if` would be lost by the rewrite"
                return Branches(owner, owner.test, assign.value, cst.Name(name), f"{name} = ")
    found = branches(ctx, owner, path)
    return found


def tf_effect(node: cst.CSTNode) -> bool:
    """Whether `node` has a Python side effect that graph code runs while tracing."""
    return any(
        type(n) in (cst.NamedExpr, cst.Yield, cst.Await)
        or (type(n) is cst.Call and _python_effect(n))  # type: ignore[arg-type]
        for n in descendants(node)
    )


def _python_effect(call: cst.Call) -> bool:
    func = call.func
    if type(func) is cst.Name:
        return func.value in ("print", "input", "open", "setattr")
    return type(func) is cst.Attribute and func.attr.value in MUTATING_METHODS
