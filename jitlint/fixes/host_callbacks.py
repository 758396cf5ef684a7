"""Host-side effects of traced code, moved to run time: JIT107's prints, logs and mutations
of outer containers and JIT118's taps of the removed `jax.experimental.host_callback`.

JIT107: `seen.append(x)` on a list made outside a jitted function runs once, while tracing, and
stores a tracer. `jax.debug.callback(seen.append, x)` runs it on every call of the compiled
program, with `x` as a NumPy array: what the statement meant.

JIT118:

    from jax.experimental import host_callback    (the import line goes)
    host_callback.id_tap(report, x)        ->     jax.debug.callback(report, x, ())
    y = host_callback.id_tap(report, x)    ->     y = (jax.debug.callback(report, x, ()), x)[1]
    host_callback.id_print(x)              ->     jax.debug.print("{}", x)

`id_tap(f, x)` called `f(x, transforms)` on the host and returned `x`; `transforms` was
empty outside `vmap`/`jvp`, so the callback gets `()`. Where the tap's result is used,
the value is passed on after the callback (only for a name, which may be read twice).
Only when the module is imported alone on its line (after another simple statement, which
absorbs the removed line) under one name, and every use of that name is such a call with
positional arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.api import HOST_CALLBACK
from jitlint.python.walker import descendants

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

# Mutators taking one value whose result is None: a callback may call them as they are.
_ONE_VALUE = frozenset({"append", "add", "appendleft", "extend"})


def mutation_callback_fix(
    ctx: FileContext, node: cst.Call, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """`box.append(x)` as a whole statement (`path` ends at `node`) ->
    `jax.debug.callback(box.append, x)`. Unsafe: the container now fills as the compiled
    calls run (once per call, asynchronously with respect to the caller, possibly out of
    order with other output) and holds NumPy arrays instead of tracers."""
    if type(node) is not cst.Call:
        return None  # `box[k] = x`, `total += x`: no mutator call to hand over
    func = node.func
    if type(func) is not cst.Attribute or func.attr.value not in _ONE_VALUE:
        return None
    if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return None
    if len(path) < 2 or type(path[-2]) is not cst.Expr:
        return None  # the call's result is used: a callback returns None
    code = ctx.module.code_for_node
    jax_name, imported = ctx.import_name("jax", "jax")
    text = f"{jax_name}.debug.callback({code(func)}, {code(node.args[0].value)})"
    return NodeFix(
        "unsafe",
        f"run `{code(func)}` on every call with `{jax_name}.debug.callback` (it then receives "
        "NumPy arrays, as the compiled calls run)",
        ((node, text),),
        (imported,) if imported else (),
    )


def host_callback_fix(ctx: FileContext, statement: cst.SimpleStatementLine) -> NodeFix | None:
    """The fix for the import `statement` of the host_callback module."""
    alias = _bound_name(statement)
    body = list(ctx.module.body)
    if alias is None or statement not in body or body.index(statement) == 0:
        return None
    previous = body[body.index(statement) - 1]
    if type(previous) is not cst.SimpleStatementLine:
        return None
    if statement.trailing_whitespace.comment is not None:
        return None
    jax_name, imported = ctx.import_name("jax", "jax")
    code = ctx.module.code_for_node
    unused = {id(n.value) for n in descendants(ctx.module) if type(n) is cst.Expr}
    replacements: list[tuple[cst.CSTNode | tuple[cst.CSTNode, cst.CSTNode], str]] = []
    uses = [n for n in descendants(ctx.module) if type(n) is cst.Name and n.value == alias]
    calls = [
        n
        for n in descendants(ctx.module)
        if type(n) is cst.Call
        and type(n.func) is cst.Attribute
        and type(n.func.value) is cst.Name
        and n.func.value.value == alias
    ]
    if len(calls) != len(uses) - 1:  # the import binds the name once; all else are calls
        return None
    for call in calls:
        text = _replacement(call, jax_name, code, id(call) in unused)
        if text is None:
            return None
        replacements.append((call, text))
    kept = code(previous.with_changes(leading_lines=())).rstrip("\r\n")
    replacements.append(((previous, statement), kept))
    return NodeFix(
        "unsafe",
        f"use `{jax_name}.debug.callback`/`{jax_name}.debug.print` (the tap's callback gets "
        "`()` as its transforms) and drop the import",
        tuple(replacements),  # type: ignore[arg-type]
        (imported,) if imported else (),
    )


def _bound_name(statement: cst.SimpleStatementLine) -> str | None:
    """The name the line binds to the host_callback module, when that is all it does."""
    if len(statement.body) != 1:
        return None
    small = statement.body[0]
    if type(small) is cst.ImportFrom and type(small.names) is not cst.ImportStar:
        module = cst.Module(body=()).code_for_node(small.module) if small.module else ""
        names = small.names
        if small.relative or module != "jax.experimental" or len(names) != 1:
            return None
        alias = names[0]
        if type(alias.name) is not cst.Name or alias.name.value != "host_callback":
            return None
    elif type(small) is cst.Import and len(small.names) == 1:
        alias = small.names[0]
        if cst.Module(body=()).code_for_node(alias.name) != HOST_CALLBACK or not alias.asname:
            return None
    else:
        return None
    bound = alias.asname.name if alias.asname else alias.name
    return bound.value if type(bound) is cst.Name else None


def _replacement(
    call: cst.Call, jax_name: str, code: Callable[[cst.CSTNode], str], unused: bool
) -> str | None:
    args = call.args
    if any(a.keyword is not None or a.star for a in args):
        return None
    name = call.func.attr.value  # type: ignore[attr-defined]
    if name == "id_tap" and len(args) == 2:
        value = args[1].value
        text = f"{jax_name}.debug.callback({code(args[0].value)}, {code(value)}, ())"
    elif name == "id_print" and len(args) == 1:
        value = args[0].value
        text = f'{jax_name}.debug.print("{{}}", {code(value)})'
    else:
        return None
    if unused:
        return text
    if type(value) is not cst.Name:
        return None
    return f"({text}, {value.value})[1]"


def log_callback_fix(ctx: FileContext, node: cst.Call) -> NodeFix | None:
    """JIT107: `logging.info("loss %s", x)` -> `jax.debug.callback(lambda *values:
    logging.info("loss %s", *values), x)`: the logger runs on every call, with the values
    as NumPy arrays. Only a literal message with positional values."""
    if len(node.args) < 2 or type(node.args[0].value) is not cst.SimpleString:
        return None
    if any(arg.keyword is not None or arg.star for arg in node.args):
        return None
    code = ctx.module.code_for_node
    values = [code(arg.value) for arg in node.args[1:]]
    jax_name, imported = ctx.import_name("jax", "jax")
    log = f"{code(node.func)}({code(node.args[0].value)}, *values)"
    text = f"{jax_name}.debug.callback(lambda *values: {log}, {', '.join(values)})"
    return NodeFix(
        "unsafe",
        "log from `jax.debug.callback`, which runs on every call with the values",
        ((node, text),),
        (imported,) if imported else (),
    )


def debug_print_fix(ctx: FileContext, node: cst.Call) -> NodeFix | None:
    """JIT107: `print("x =", x)` -> `jax.debug.print("x = {}", x)`, literal strings folded
    into the format; not with keywords, stars or f-strings."""
    pieces: list[str] = []
    values: list[str] = []
    module = ctx.module
    for arg in node.args:
        if arg.keyword is not None or arg.star:
            return None
        expr = arg.value
        if type(expr) is cst.SimpleString:
            text = expr.evaluated_value
            if not isinstance(text, str):
                return None
            pieces.append(text.replace("{", "{{").replace("}", "}}"))
        elif type(expr) in (cst.FormattedString, cst.ConcatenatedString):
            return None
        else:
            pieces.append("{}")
            values.append(module.code_for_node(expr))
    jax_name, imported = ctx.import_name("jax", "jax")
    fmt = repr(" ".join(pieces))
    text = f"{jax_name}.debug.print({', '.join([fmt, *values])})"
    return NodeFix(
        "unsafe",
        "use `jax.debug.print`",
        ((node, text),),
        (imported,) if imported else (),
    )
