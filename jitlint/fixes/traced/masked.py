"""An `if <traced test>:` without `else` whose body only reassigns names (JIT101).

    if not jnp.all(ok):                      c = jnp.logical_not(jnp.all(ok))
        mean = jnp.where(ok, mean, 0.0)  ->  mean = jnp.where(c, jnp.where(ok, mean, 0.0), mean)
        var = jnp.where(ok, var, 1.0)        var = jnp.where(c, jnp.where(ok, var, 1.0), var)

Each assignment keeps its name's old value where the test is false. Statement by statement
this is what the `if` did: where the test holds, a later assignment reads the values the
earlier ones chose, as before; where it does not, every name keeps its old value. Only when
every name is bound before the `if` (a parameter, or assigned earlier in the same block), each
statement is one assignment to one plain name on one line, no value is a string, `None` or a
lambda, no value is a Python value the model knows (a count would become an array), and
nothing has a Python side effect. A test read more than once is bound to a new
name first (a later assignment may change what it reads); a top-level `not t` becomes
`jnp.logical_not(t)`. Unsafe as `jnp.where`: every value is computed on both sides, and the
values broadcast to one shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.fixes.traced.conds import has_effect
from jitlint.fixes.traced.where import indent_of, names_in
from jitlint.model.context import FileContext
from jitlint.model.domain.values import STATIC
from jitlint.model.jax.tracing import FunctionTrace
from jitlint.python.walker import descendants

_NOT_ARRAYS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Lambda)
_CONDITION = "condition"


def masked_assignments_fix(
    ctx: FileContext, owner: cst.If, path: Sequence[cst.CSTNode], trace: FunctionTrace
) -> NodeFix | None:
    """The rewrite above for `owner` (`path` ends at it), or None."""
    if owner.orelse is not None or type(owner.body) is not cst.IndentedBlock:
        return None
    assigns = [_assignment(s) for s in owner.body.body]
    if not assigns or any(a is None for a in assigns):
        return None
    pairs: list[tuple[str, cst.BaseExpression]] = assigns  # type: ignore[assignment]
    if not _bound_before(owner, path, {name for name, _ in pairs}):
        return None
    if has_effect(ctx, trace, owner.test) or any(has_effect(ctx, trace, v) for _, v in pairs):
        return None
    if any(isinstance(v, _NOT_ARRAYS) or _is_none(v) for _, v in pairs):
        return None
    if any(trace.value(v).kind == STATIC for _, v in pairs):
        return None  # a Python value (a count, a shape) would become an array
    code = ctx.module.code_for_node
    test = owner.test
    negated = type(test) is cst.UnaryOperation and type(test.operator) is cst.Not
    inner = test.expression if negated else test  # type: ignore[attr-defined]
    if _converts_to_bool(trace, inner):
        return None
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    test_text = f"{jnp}.logical_not({code(inner)})" if negated else code(test)
    lines: list[str] = []
    condition = test_text
    if len(pairs) > 1:
        condition = _fresh_name(path, owner)
        if condition is None:
            return None
        lines.append(f"{condition} = {test_text}")
    lines += [f"{name} = {jnp}.where({condition}, {code(value)}, {name})" for name, value in pairs]
    if any("\n" in line or "\r" in line for line in lines):
        return None
    return NodeFix(
        "unsafe",
        "keep each assigned value only where the condition holds, with `jnp.where` (every "
        "value is computed)",
        ((owner, f"\n{indent_of(ctx, path)}".join(lines)),),
        (imported,) if imported else (),
    )


def _assignment(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) of a line `name = value` without comments."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    if statement.leading_lines or statement.trailing_whitespace.comment is not None:
        return None  # a comment would be lost
    small = statement.body[0]
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    return (target.value, small.value) if type(target) is cst.Name else None


def _converts_to_bool(trace: FunctionTrace, test: cst.BaseExpression) -> bool:
    """`test` converts a value that may be traced to bool itself: the left operand of
    `and`/`or`, or the operand of `not`."""
    for node in descendants(test):
        operand = None
        if type(node) is cst.BooleanOperation:
            operand = node.left  # type: ignore[attr-defined]
        elif type(node) is cst.UnaryOperation and type(node.operator) is cst.Not:  # type: ignore[attr-defined]
            operand = node.expression  # type: ignore[attr-defined]
        if operand is not None and trace.value(operand).kind != STATIC:
            return True
    return False


def _is_none(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Name and expr.value == "None"


def _bound_before(owner: cst.If, path: Sequence[cst.CSTNode], names: set[str]) -> bool:
    """Every name in `names` is a parameter of the enclosing function, or assigned by a plain
    statement of the `if`'s block before it."""
    if len(path) < 3 or type(path[-3]) is not cst.FunctionDef:
        return False
    func = path[-3]
    statements = list(getattr(path[-2], "body", ()))
    if owner not in statements:
        return False
    params = func.params  # type: ignore[attr-defined]
    bound = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for statement in statements[: statements.index(owner)]:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Assign:
                bound |= {t.target.value for t in small.targets if type(t.target) is cst.Name}
    return names <= bound


def _fresh_name(path: Sequence[cst.CSTNode], owner: cst.If) -> str | None:
    """A name the enclosing function does not use."""
    func = next((n for n in reversed(path) if type(n) is cst.FunctionDef), owner)
    used = names_in(func)
    for suffix in ("", *(f"_{i}" for i in range(1, 10))):
        if _CONDITION + suffix not in used:
            return _CONDITION + suffix
    return None
