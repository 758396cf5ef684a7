"""Fixes for a pytree's arrays put where JAX hashes them (JIT110).

Two spellings of the same mistake: `self` of an `eqx.Module` that holds arrays marked static
on `jax.jit`, and an array field declared static (`eqx.field(static=True)`). Both fixes
let the arrays be leaves again: the jit becomes `eqx.filter_jit` (arrays traced, every other
leaf static, which is what marking `self` static meant), and the field loses its flag.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.frameworks import equinox
from jitlint.model.jax.jit import JitApplication

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

# The keywords of a field helper that make a field static, and the value that does.
_STATIC_FLAGS = {"static": "True", "pytree_node": "False"}


def filter_jit_fix(ctx: FileContext, app: JitApplication) -> NodeFix | None:
    """`@partial(jax.jit, static_argnums=0)` (or `static_argnames="self"`) on a method of an
    equinox module -> `@eqx.filter_jit`. Only when the decorator is a `partial` whose
    keywords are the static spec alone and it makes only `self` static; the method's own
    Python-valued arguments then also become static (filter_jit traces arrays only)."""
    node = app.node
    func = app.func
    if type(node) is not cst.Call or type(func) is not cst.FunctionDef:
        return None
    if not any(d.decorator is node for d in func.decorators):
        return None
    spec = app.spec
    keywords = [a for a in node.args if a.keyword is not None]
    if len(node.args) != 2 or len(keywords) != 1 or node.args[0].keyword is not None:
        return None
    if keywords[0] not in (spec.argnums_arg, spec.argnames_arg):
        return None
    static = spec.effective(app.signature)
    if static is None or static[0] != {0} or static[1] - {"self"}:
        return None
    eqx, imported = ctx.import_name(*equinox.IMPORT_AS)
    return NodeFix(
        "unsafe",
        f"jit with `{eqx}.filter_jit`: the module's arrays are traced and its other fields "
        "static; the method's Python-valued arguments become static too (one compilation "
        "per value)",
        ((node, f"{eqx}.filter_jit"),),
        (imported,) if imported else (),
    )


def unflag_static_field_fix(ctx: FileContext, declaration: cst.Call, field: str) -> NodeFix | None:
    """`data: jax.Array = eqx.field(static=True)` -> `eqx.field()` (or
    `struct.field(pytree_node=False)` -> `struct.field()`): the array becomes a leaf, traced
    by jit instead of hashed. Unsafe: transformations (grad, tree maps, partition filters)
    now see the field as one of the module's arrays."""
    flags = [
        a
        for a in declaration.args
        if a.keyword is not None
        and _STATIC_FLAGS.get(a.keyword.value) is not None
        and type(a.value) is cst.Name
        and a.value.value == _STATIC_FLAGS[a.keyword.value]
    ]
    if len(flags) != 1 or any(a.star for a in declaration.args):
        return None
    kept = [a for a in declaration.args if a is not flags[0]]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    text = ctx.module.code_for_node(declaration.with_changes(args=kept))
    return NodeFix(
        "unsafe",
        f"make `{field}` a leaf again (drop `{ctx.module.code_for_node(flags[0]).strip(', ')}`): "
        "jit traces the array instead of hashing it, and transformations now see it",
        ((declaration, text),),
    )
