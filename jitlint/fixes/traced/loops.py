"""Rewrite a `while` loop on a traced condition into `jax.lax.while_loop` (JIT101).

Only a loop that sits directly in a function's body, has no `else`, and whose body only
assigns plain names (no `break`, `continue`, `return`, `yield`, nested functions or
classes, `global`/`nonlocal`, writes to attributes or items) is rewritten:

    while not converged and steps < 100:        def _while_cond(carry):
        x_new = jnp.cos(x)                          x, converged, steps = carry
        converged = jnp.abs(x_new - x) < tol        return jnp.logical_and(...)
        x = x_new                  ->           def _while_body(carry):
        steps += 1                                  x, converged, steps = carry
                                                    ...the body...
                                                    return (x, converged, steps)
                                                (x, converged, steps) = jax.lax.while_loop(
                                                    _while_cond, _while_body, (x, converged, steps))

The carried names are those the body assigns that are bound before the loop (parameters and
assignments earlier in the function's body); the other names the body assigns are local to
one iteration, and the loop is left alone when the test or the code after the loop reads
one. `and`/`or`/`not` in the test become `jnp.logical_and`/`logical_or`/`logical_not`.
Unsafe: every carried value must keep its shape and dtype from one iteration to the next
(a Python `False` or `0` before the loop becomes an array), the loop body is traced once, so
Python side effects in it run once, and reverse-mode differentiation through
`lax.while_loop` is not supported.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.fixes.traced.where import indent_of, names_in
from jitlint.model.context import FileContext

_COND, _BODY, _LOOP = "_while_cond", "_while_body", "_loop_body"
_REJECTED = (
    cst.Break,
    cst.Continue,
    cst.Return,
    cst.Yield,
    cst.Await,
    cst.FunctionDef,
    cst.ClassDef,
    cst.Global,
    cst.Nonlocal,
    cst.Del,
    cst.NamedExpr,
    cst.Try,
    cst.With,
)


def while_loop_fix(
    ctx: FileContext, node: cst.While, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """The rewrite above for the `while` statement `node` (`path` ends at it)."""
    if node.orelse is not None or _assigned(node.test) != []:
        return None
    parts = _loop(ctx, node, path, names_in(node.test), set())
    test = _logical(ctx, node.test)
    if parts is None or test is None:
        return None
    carry, lines, indent, inner = parts
    names = _tuple(carry)
    jax_name, imported = ctx.import_name("jax", "jax")
    out = [
        f"{_comment(node, indent)}def {_COND}(carry):",
        f"{inner}{names} = carry",
        f"{inner}return {test}",
        f"{indent}def {_BODY}(carry):",
        f"{inner}{names} = carry",
        *lines,
        f"{inner}return {names}",
        f"{indent}{names} = {jax_name}.lax.while_loop({_COND}, {_BODY}, {names})",
    ]
    return _loop_fix(node, "while_loop", carry, out, imported)


def for_range_fix(ctx: FileContext, node: cst.For, path: Sequence[cst.CSTNode]) -> NodeFix | None:
    """`for i in range(n):` with a traced `n` -> `jax.lax.fori_loop(0, n, _loop_body,
    carry)`, on the same terms as the `while` rewrite (`path` ends at `node`)."""
    call = node.iter
    if node.orelse is not None or node.asynchronous is not None or type(call) is not cst.Call:
        return None
    if type(node.target) is not cst.Name or not 1 <= len(call.args) <= 2:
        return None
    if any(a.keyword is not None or a.star for a in call.args):
        return None
    index = node.target.value
    parts = _loop(ctx, node, path, names_in(call), {index})
    if parts is None:
        return None
    carry, lines, indent, inner = parts
    code = ctx.module.code_for_node
    bounds = [code(a.value) for a in call.args]
    if len(bounds) == 1:
        bounds.insert(0, "0")
    if any("\n" in b or "\r" in b for b in bounds):
        return None
    names = _tuple(carry)
    jax_name, imported = ctx.import_name("jax", "jax")
    out = [
        f"{_comment(node, indent)}def {_LOOP}({index}, carry):",
        f"{inner}{names} = carry",
        *lines,
        f"{inner}return {names}",
        f"{indent}{names} = {jax_name}.lax.fori_loop({bounds[0]}, {bounds[1]}, {_LOOP}, {names})",
    ]
    return _loop_fix(node, "fori_loop", carry, out, imported)


def _loop_fix(
    node: cst.While | cst.For, loop: str, carry: list[str], lines: list[str], imported: str | None
) -> NodeFix:
    """The loop statement replaced by `lines`, which run it with `jax.lax.<loop>`."""
    return NodeFix(
        "unsafe",
        f"run the loop with `jax.lax.{loop}`, carrying "
        + ", ".join(f"`{n}`" for n in carry)
        + " (each must keep its shape and dtype across iterations)",
        ((node, "\n".join(lines)),),
        (imported,) if imported else (),
    )


def _loop(
    ctx: FileContext,
    node: cst.While | cst.For,
    path: Sequence[cst.CSTNode],
    reads: set[str],
    fresh: set[str],
) -> tuple[list[str], list[str], str, str] | None:
    """(carried names, body lines indented for the new function, indent, inner indent) for
    a loop directly in a function's body; `reads`: names its header reads; `fresh`: names
    the loop itself binds each iteration (a `for` target)."""
    if type(node.body) is not cst.IndentedBlock or len(path) < 3:
        return None
    block, func = path[-2], path[-3]
    if type(func) is not cst.FunctionDef or func.body is not block:
        return None
    statements = list(block.body)  # type: ignore[attr-defined]
    where = statements.index(node)
    assigned = _assigned(node.body)
    if assigned is None or fresh & set(assigned):
        return None
    bound = _params(func) | {n for s in statements[:where] for n in _assigned(s) or ()}
    carry = [n for n in assigned if n in bound]
    local = (set(assigned) - set(carry)) | fresh
    read_later = {n for s in statements[where + 1 :] for n in names_in(s)}
    if not carry or local & read_later or (set(assigned) - set(carry)) & reads:
        return None
    if {_COND, _BODY, _LOOP} & (names_in(func) | set(assigned)):
        return None
    code = ctx.module.code_for_node
    indent = indent_of(ctx, path)
    inner = indent + ctx.module.default_indent
    lines: list[str] = []
    for statement in node.body.body:
        text = code(statement)
        if '"""' in text or "'''" in text or "\\\n" in text:
            return None  # a string or continuation over several lines: re-indenting changes it
        lines.extend(
            f"{inner}{line}" if line.strip() else "" for line in text.rstrip("\r\n").splitlines()
        )
    return carry, lines, indent, inner


def _tuple(names: list[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _comment(node: cst.While | cst.For, indent: str) -> str:
    """The loop header's own comment, on a line of its own above the new code."""
    comment = node.body.header.comment  # type: ignore[union-attr]
    return f"{comment.value}\n{indent}" if comment is not None else ""


def _assigned(statement: cst.CSTNode) -> list[str] | None:
    """Names a statement (or block) assigns, in order; None if it does anything the rewrite
    cannot carry (see the module's docstring)."""
    names: list[str] = []
    stack: list[cst.CSTNode] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, _REJECTED):
            return None
        kind = type(node)
        targets: list[cst.CSTNode] = []
        if kind is cst.Assign:
            targets = [t.target for t in node.targets]  # type: ignore[attr-defined]
        elif kind in (cst.AugAssign, cst.AnnAssign, cst.For):
            targets = [node.target]  # type: ignore[attr-defined]
        for target in targets:
            found = _target_names(target)
            if found is None:
                return None
            names.extend(n for n in found if n not in names)
        stack.extend(reversed(node.children))
    return names


def _target_names(target: cst.CSTNode) -> list[str] | None:
    kind = type(target)
    if kind is cst.Name:
        return [target.value]  # type: ignore[attr-defined]
    if kind in (cst.Tuple, cst.List):
        names: list[str] = []
        for element in target.elements:  # type: ignore[attr-defined]
            inner = _target_names(element.value)
            if inner is None:
                return None
            names.extend(inner)
        return names
    return None  # an attribute or item: a write the carry cannot hold


def _params(func: cst.FunctionDef) -> set[str]:
    p = func.params
    every = [*p.posonly_params, *p.params, *p.kwonly_params]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return {param.name.value for param in every}


def _logical(ctx: FileContext, test: cst.BaseExpression) -> str | None:
    """The test with `and`/`or`/`not` as `jnp.logical_*` calls; None if it spans lines."""
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    if imported:
        jnp = "jax.numpy"  # `import jax` is added with the loop; no second import needed

    def convert(expr: cst.BaseExpression) -> str:
        kind = type(expr)
        if kind is cst.BooleanOperation:
            name = "logical_and" if type(expr.operator) is cst.And else "logical_or"  # type: ignore[attr-defined]
            return f"{jnp}.{name}({convert(expr.left)}, {convert(expr.right)})"  # type: ignore[attr-defined]
        if kind is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
            return f"{jnp}.logical_not({convert(expr.expression)})"  # type: ignore[attr-defined]
        return ctx.module.code_for_node(expr.with_changes(lpar=(), rpar=()) if expr.lpar else expr)  # type: ignore[attr-defined]

    text = convert(test)
    return None if "\n" in text or "\r" in text else text
