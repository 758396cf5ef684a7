"""Move a Python side effect on traced values from trace time to run time (JIT107).

`seen.append(x)` on a list made outside a jitted function runs once, while tracing, and
stores a tracer. `jax.debug.callback(seen.append, x)` runs it on every call of the compiled
program, with `x` as a NumPy array: what the statement meant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix

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
