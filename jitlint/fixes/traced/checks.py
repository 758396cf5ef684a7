"""Fix a validation `if <traced test>: raise ...` (JIT101), which cannot run at trace time.

- In a module that imports equinox, when the test reads a local name that the function
  reads again after the check, the check moves to run time:
  `x = eqx.error_if(x, <test>, "message")` (a test `not t` becomes `jnp.logical_not(t)`,
  since `not` would convert a traced `t` to a bool). The value then carries the check, so it fires
  when the compiled function runs (and at once outside jit). Unsafe: the error raised is
  equinox's runtime error, not the original exception class, so an `except ValueError`
  around the call no longer catches it.
- Otherwise the check is removed: the statement becomes `pass` with the check kept in a
  comment (as for `assert`). Unsafe: the program no longer checks it.

Only an `if` without `else` whose body is one `raise` of a call with at most a string
message, both on one line each, is rewritten.

The same check in TensorFlow graph code that autograph converts (JIT205: autograph traces
both branches of a tensor `if`, so the `raise` always runs) becomes
`tf.debugging.Assert(tf.logical_not(test), [message])`: the check runs in the graph on every
call. Unsafe: it raises InvalidArgumentError, not the original exception class.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.context import FileContext
from jitlint.model.jax.frameworks import equinox
from jitlint.python.walker import descendants

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def raise_check_fix(ctx: FileContext, node: cst.If, path: Sequence[cst.CSTNode]) -> NodeFix | None:
    """The fix for `if test: raise E("msg")` (`path` ends at `node`)."""
    raised = _single_raise(node)
    if raised is None:
        return None
    code = ctx.module.code_for_node
    test = code(node.test)
    if "\n" in test or "\r" in test:
        return None
    message = _message(raised)
    name = _checked_name(node, path) if message is not None else None
    eqx, imported = ctx.import_name(*equinox.IMPORT_AS)
    if name is not None and imported is None:
        jnp_imports: tuple[str, ...] = ()
        if type(node.test) is cst.UnaryOperation and type(node.test.operator) is cst.Not:
            # `not` would convert the traced test to a Python bool again.
            jnp, jnp_import = ctx.import_name("jax.numpy", "jnp")
            test = f"{jnp}.logical_not({code(node.test.expression)})"
            jnp_imports = (jnp_import,) if jnp_import else ()
        return NodeFix(
            "unsafe",
            f"check at run time with `{eqx}.error_if` (it raises equinox's runtime error)",
            ((node, f"{name} = {eqx}.error_if({name}, {test}, {message})"),),
            jnp_imports,
        )
    raise_text = code(raised).strip()
    if "\n" in raise_text or "\r" in raise_text:
        return None
    return NodeFix(
        "unsafe",
        "remove the check: it cannot test a traced value (`eqx.error_if` or checkify check "
        "at run time)",
        ((node, f"pass  # a check on a traced value, removed: if {test}: {raise_text}"),),
    )


def tf_raise_check_fix(
    module: cst.Module, node: cst.If, tf_spelled: str, imports: tuple[str, ...]
) -> NodeFix | None:
    """`if test: raise E("msg")` on a symbolic tensor in autographed code (JIT205) ->
    `tf.debugging.Assert(tf.logical_not(test), ["msg"])`, a check that runs in the graph."""
    raised = _single_raise(node)
    test = module.code_for_node(node.test)
    if raised is None or "\n" in test or "\r" in test:
        return None
    if any(type(n) is cst.BooleanOperation for n in descendants(node.test)):
        return None  # `and`/`or` on tensors is autograph's to convert, not a plain operand
    message = _message(raised)
    if message is None:
        message = repr(module.code_for_node(raised).strip())
        if "\n" in message or "\r" in message:
            return None
    return NodeFix(
        "unsafe",
        f"check in the graph with `{tf_spelled}.debugging.Assert` (it raises "
        "InvalidArgumentError when the test holds)",
        ((node, f"{tf_spelled}.debugging.Assert({tf_spelled}.logical_not({test}), [{message}])"),),
        imports,
    )


def _single_raise(node: cst.If) -> cst.Raise | None:
    if node.orelse is not None:
        return None
    body = getattr(node.body, "body", ())
    line = body[0] if len(body) == 1 else None
    if type(node.body) is cst.SimpleStatementSuite:
        line = node.body
    if line is None or not isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite):
        return None
    if len(line.body) != 1 or type(line.body[0]) is not cst.Raise:
        return None
    raised = line.body[0]
    return raised if raised.exc is not None and raised.cause is None else None  # type: ignore[return-value]


def _message(raised: cst.Raise) -> str | None:
    """The message of `raise E("...")` as a string literal (`"..."` for `raise E`)."""
    exc = raised.exc
    if type(exc) is cst.Call:
        if not exc.args:
            return '"check failed"'
        if len(exc.args) == 1 and exc.args[0].keyword is None and not exc.args[0].star:
            value = exc.args[0].value
            if type(value) is cst.SimpleString:
                return value.value
        return None
    return '"check failed"' if type(exc) in (cst.Name, cst.Attribute) else None


def _checked_name(node: cst.If, path: Sequence[cst.CSTNode]) -> str | None:
    """A local name the test reads and the function reads again after the check."""
    if len(path) < 3 or type(path[-3]) is not cst.FunctionDef:
        return None
    block = path[-2]
    statements = list(getattr(block, "body", ()))
    if node not in statements:
        return None
    where = statements.index(node)
    func = path[-3]
    params = func.params  # type: ignore[attr-defined]
    local = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for statement in statements[:where]:  # plain assignments before the check
        for small in (
            getattr(statement, "body", ()) if type(statement) is cst.SimpleStatementLine else ()
        ):
            if type(small) is cst.Assign:
                local |= {t.target.value for t in small.targets if type(t.target) is cst.Name}
    later = _names(statements[where + 1 :])
    for name in _reads(node.test):
        if name in later and name in local and name not in ("self", "cls"):
            return name
    return None


def _reads(node: cst.CSTNode) -> list[str]:
    """Bare names read in `node` (not attribute names), in order."""
    found: list[str] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Attribute:
            stack.append(current.value)  # type: ignore[attr-defined]
            continue
        if type(current) is cst.Call:
            stack.extend(reversed([a.value for a in current.args]))  # type: ignore[attr-defined]
            continue
        if type(current) is cst.Name and current.value not in found:  # type: ignore[attr-defined]
            found.append(current.value)  # type: ignore[attr-defined]
        stack.extend(reversed(current.children))
    return found


def _names(statements: Sequence[cst.CSTNode]) -> set[str]:
    found: set[str] = set()
    stack: list[cst.CSTNode] = list(statements)
    while stack:
        current = stack.pop()
        if isinstance(current, _SCOPES):
            continue
        if type(current) is cst.Name:
            found.add(current.value)  # type: ignore[attr-defined]
        stack.extend(current.children)
    return found
