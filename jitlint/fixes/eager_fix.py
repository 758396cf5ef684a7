"""Run a function without the `jax.jit` that compiles it: the remedy for Python state that
the function changes on every call (`self.n += 1` in a jitted bound method), which jit runs
once, while tracing. `fast = jax.jit(counter.count)` becomes `fast = counter.count`.

Only a `jax.jit(f)` call with no options, in this file, that is the one way the function is
traced (no other transformation, no traced caller): then the function runs as Python
again, exactly as written. Unsafe: it now runs op by op (slower), and returns what its
Python code returns (a Python number where the compiled code returned an array). Making
the function pure (returning the new state) keeps jit, but needs a person.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix

if TYPE_CHECKING:
    from jitlint.model.context import FileContext
    from jitlint.model.jax.tracing import FunctionTrace


def unjit_fix(ctx: FileContext, trace: FunctionTrace) -> NodeFix | None:
    """`jax.jit(f)` -> `f` for the function of `trace`, or None."""
    # A jitted bound method is entered through its contexts; a decorated or named function
    # through its entries too. Every traced analysis must come from the one jit.
    entries = {id(e): e for e in trace.entries}
    for context in trace.contexts:
        if context.level > 0:
            if context.entry is None:
                return None  # called from traced code: it stays traced without this jit
            entries[id(context.entry)] = context.entry
    if len(entries) != 1 or trace.inbound:
        return None
    entry = next(iter(entries.values()))
    site = entry.site
    if entry.transform.qualname != "jax.jit" or entry.origin is not None or entry.contract:
        return None
    if type(site) is not cst.Call or len(site.args) != 1:
        return None
    arg = site.args[0]
    if arg.keyword is not None or arg.star:
        return None
    text = ctx.module.code_for_node(arg.value)
    return NodeFix(
        "unsafe",
        f"call `{text}` without `jax.jit`: its Python side effects then run on every call, "
        "op by op, and it returns Python values where the compiled code returned arrays",
        ((site, text),),
    )
