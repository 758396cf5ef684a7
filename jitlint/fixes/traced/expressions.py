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
- `layers[i](x)`, a Python list of flax nnx / equinox layers (or of functions the
  analysis resolves to their `def`) called at a traced index, becomes
  `jax.lax.switch(i, layers, x)`. Unsafe: every item is traced and must return the same
  shapes and dtypes, the index is clamped into range, and layers that update their own
  state while called (batch statistics) cannot run inside `lax.switch`.
- `not x` on a traced value, whose result is used as a value (an argument, an assignment,
  a return) rather than tested, becomes `jnp.logical_not(x)`. Unsafe: the result is now a
  boolean array (element-wise for more than one element, where `not` raised), and code
  that needs a Python bool still fails where it converts it.
- An f-string that formats a tracer with a spec (`f"loss={loss:.4f}"`) and is only
  printed (`print(f"...")`, `jax.debug.print(f"...")`, or a name assigned it and passed
  alone to one of those in the next statement) becomes a `jax.debug.print` template with
  the values as arguments: `jax.debug.print("loss={:.4f}", loss)`. JAX formats the
  concrete values when the compiled function runs. Unsafe: the text now appears on every
  call (not once, while tracing), possibly out of order with other output.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.context import FileContext
from jitlint.model.domain.plugins import plugins
from jitlint.model.domain.values import Array, Foreign, FunctionRef, Scalar, Seq, Value

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


def logical_not_fix(
    ctx: FileContext, node: cst.UnaryOperation, parent: cst.CSTNode | None
) -> NodeFix | None:
    """`not x` on a traced value, where the result is a value (an argument, an assignment,
    a return), not a test -> `jnp.logical_not(x)`."""
    if type(parent) in (cst.BooleanOperation, cst.UnaryOperation, cst.If, cst.While):
        return None  # the result is converted again there
    jnp, imported = ctx.import_name("jax.numpy", "jnp")
    inner = ctx.module.code_for_node(node.expression)
    if "\n" in inner or "\r" in inner:
        return None
    return NodeFix(
        "unsafe",
        f"keep it a boolean array: `{jnp}.logical_not(x)`",
        ((node, f"{jnp}.logical_not({inner})"),),
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


def _template(node: cst.FormattedString) -> tuple[str, list[cst.BaseExpression]] | None:
    """`f"a={x:.2f}"` -> (`"a={:.2f}"`, [x]); None for nested specs, `=` or several lines."""
    body: list[str] = []
    values: list[cst.BaseExpression] = []
    for part in node.parts:
        if type(part) is cst.FormattedStringText:
            body.append(part.value)
            continue
        assert type(part) is cst.FormattedStringExpression
        if part.equal is not None:
            return None
        spec = ""
        for piece in part.format_spec or ():
            if type(piece) is not cst.FormattedStringText:
                return None
            spec += piece.value
        conversion = f"!{part.conversion}" if part.conversion else ""
        body.append("{" + conversion + (f":{spec}" if part.format_spec else "") + "}")
        values.append(part.expression)
    prefix = node.start.replace("f", "").replace("F", "")
    text = prefix + "".join(body) + node.end
    return (text, values) if "\n" not in text and "\r" not in text else None


def _printer(ctx: FileContext, call: cst.CSTNode, only: cst.CSTNode) -> bool:
    """`call` is `print(only)` or `jax.debug.print(only)`, `only` its one argument."""
    if type(call) is not cst.Call or len(call.args) != 1:
        return False
    arg = call.args[0]
    if arg.keyword is not None or arg.star or arg.value is not only:
        return False
    names = ctx.names.qualified_names(call.func, ctx.path_to(call))
    return names in ({"builtins.print"}, {"jax.debug.print"})


def printed_fstring_fix(
    ctx: FileContext, fstring: cst.FormattedString, parents: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """An f-string only printed -> `jax.debug.print(template, *values)` (see above)."""
    found = _template(fstring)
    if found is None or not found[1]:
        return None
    template, values = found
    code = ctx.module.code_for_node
    args = [code(v) for v in values]
    if any("\n" in a or "\r" in a for a in args):
        return None
    jax_name, imported = ctx.import_name("jax", "jax")
    imports = (imported,) if imported else ()
    message = "print on every call with `jax.debug.print`, which formats the values"
    arg = parents[-1] if parents else None
    call = parents[-2] if len(parents) >= 2 else None
    if type(arg) is cst.Arg and call is not None and _printer(ctx, call, fstring):
        text = f"{jax_name}.debug.print({', '.join([template, *args])})"
        return NodeFix("unsafe", message, ((call, text),), imports)
    # `status = f"..."` then `print(status)`, the name read nowhere else in the function
    if len(parents) < 4 or type(arg) is not cst.Assign or arg.value is not fstring:
        return None
    line, block = parents[-2], parents[-3]
    if len(arg.targets) != 1 or type(arg.targets[0].target) is not cst.Name:
        return None
    name = arg.targets[0].target.value
    body = list(getattr(block, "body", ()))
    if line not in body or body.index(line) + 1 >= len(body):
        return None
    following = body[body.index(line) + 1]
    if type(following) is not cst.SimpleStatementLine or len(following.body) != 1:
        return None
    expr = following.body[0]
    if type(expr) is not cst.Expr or type(expr.value) is not cst.Call:
        return None
    printed = expr.value
    if not printed.args or not _printer(ctx, printed, printed.args[0].value):
        return None
    if type(printed.args[0].value) is not cst.Name or printed.args[0].value.value != name:
        return None
    scope = next((p for p in reversed(parents) if type(p) in (cst.FunctionDef, cst.Lambda)), None)
    if scope is None or _reads(scope, name) != 1:
        return None
    call_text = f"{jax_name}.debug.print({', '.join([name, *args])})"
    return NodeFix("unsafe", message, ((fstring, template), (printed, call_text)), imports)


def _reads(scope: cst.CSTNode, name: str) -> int:
    """How many times `name` is read in `scope` (its assignment targets not counted)."""
    count = 0
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if type(node) is cst.AssignTarget:
            continue
        if type(node) is cst.Name and node.value == name:
            count += 1
        stack.extend(node.children)
    return count


def _switchable(value: Value) -> bool:
    if isinstance(value, FunctionRef):
        return True
    return (
        isinstance(value, Foreign)
        and value.role == "instance"
        and value.path.startswith(tuple(p for f in plugins() for p in f.switchable_layers))
    )


def switch_call_fix(
    ctx: FileContext, node: cst.Subscript, base: Value, parents: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """`items[i](args)` -> `jax.lax.switch(i, items, args)` for a list of callables."""
    call = parents[-1] if parents else None
    if type(call) is not cst.Call or call.func is not node or not isinstance(base, Seq):
        return None
    if any(a.keyword is not None or a.star for a in call.args):
        return None
    items = base.items if base.items is not None else (base.elem,)
    if not items or not all(_switchable(v) for v in items):
        return None
    code = ctx.module.code_for_node
    parts = [code(node.slice[0].slice.value), code(node.value)]  # type: ignore[attr-defined]
    parts += [code(a.value) for a in call.args]
    if any("\n" in p or "\r" in p for p in parts):
        return None
    lax, imported = ctx.import_name("jax.lax", "lax")
    return NodeFix(
        "unsafe",
        f"choose the callable with `{lax}.switch` (every item is traced; they must return the "
        "same shapes)",
        ((call, f"{lax}.switch({', '.join(parts)})"),),
        (imported,) if imported else (),
    )
