"""Fixes for framework modules: arrays put where JAX hashes them (JIT110), a flax lifted
transformation whose static numbers miss the module (JIT101), and a linen submodule called
in a raw `jax.lax.scan` (JIT120).

Two spellings of the same mistake: `self` of an `eqx.Module` that holds arrays marked static
on `jax.jit`, and an array field declared static (`eqx.field(static=True)`). Both fixes
let the arrays be leaves again: the jit becomes `eqx.filter_jit` (arrays traced, every other
leaf static, which is what marking `self` static meant), and the field loses its flag.

`nn.checkpoint(Block, static_argnums=(1,))` counts the module itself as argument 0, so for
`Block.__call__(self, x, deterministic)` the number 1 names `x`, and `deterministic` stays
traced. When a traced parameter sits exactly one position after a number the spec lists,
the numbers were counted without `self`: the fix shifts each by one.

In a linen method, `jax.lax.scan(f, init, xs)` whose body calls the module's submodules
becomes `nn.scan(lambda module, carry, x: f(carry, x), variable_broadcast="params",
split_rngs={"params": False})(self, init, xs)`: linen's lifted scan, with one set of
parameters shared by every step, which is what the raw scan's closure meant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.plugins import FrameworkPlugin
from jitlint.model.domain.values import Value
from jitlint.model.jax.frameworks import equinox, linen
from jitlint.model.jax.jit import JitApplication
from jitlint.python.walker import descendants

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


def lifted_argnums_fix(
    ctx: FileContext, value: Value, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """`value` is a parameter of the method `path` leads into, traced because a lifted
    transformation of this file passes it a tracer."""
    why = value.why
    if not why or why[0] != "body" or why[2] not in linen.LIFTED:
        return None
    name = why[1]
    method = next((n for n in reversed(path) if type(n) is cst.FunctionDef), None)
    owner = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
    if method is None or owner is None or method.name.value != "__call__":
        return None
    positional = [p.name.value for p in (*method.params.posonly_params, *method.params.params)]
    if name not in positional:
        return None
    position = positional.index(name)
    sites = [c for c in _lifted_calls(ctx, owner.name.value) if _argnums(c) is not None]
    if len(sites) != 1:
        return None
    arg, numbers = _argnums(sites[0])  # type: ignore[misc]
    if position in numbers or position - 1 not in numbers:
        return None
    if any(0 < n < len(positional) and positional[n] in _tested(method) for n in numbers):
        return None  # a listed number names a flag the method tests: they count self already
    shifted = tuple(n + 1 for n in numbers)
    if max(shifted) >= len(positional):
        return None
    literal = "(" + ", ".join(map(str, shifted)) + ("," if len(shifted) == 1 else "") + ")"
    return NodeFix(
        "unsafe",
        f"count the module as argument 0: `static_argnums={literal}` makes `{name}` static "
        "(each number moves to the parameter one further on)",
        ((arg.value, literal),),
    )


def _tested(func: cst.FunctionDef) -> set[str]:
    """Names read in the tests of the function's `if`/`while`/conditional expressions and
    under `not`: the parameters it uses as Python flags."""
    tests = [
        getattr(n, "test", None) if type(n) in (cst.If, cst.IfExp, cst.While) else n
        for n in descendants(func)
        if type(n) in (cst.If, cst.IfExp, cst.While)
        or (type(n) is cst.UnaryOperation and type(n.operator) is cst.Not)
    ]
    return {n.value for t in tests if t is not None for n in descendants(t) if type(n) is cst.Name}


def _lifted_calls(ctx: FileContext, class_name: str) -> list[cst.Call]:
    """Calls in the file of a lifted transformation whose first argument is `class_name`."""
    found: list[cst.Call] = []
    stack: list[cst.CSTNode] = [ctx.module]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if type(node) is not cst.Call or not node.args:
            continue
        first = node.args[0].value
        if type(first) is not cst.Name or first.value != class_name:
            continue
        qualnames = ctx.names.qualified_names(node.func, ctx.path_to(node))
        if qualnames and qualnames <= linen.LIFTED:
            found.append(node)
    return found


def _argnums(call: cst.Call) -> tuple[cst.Arg, tuple[int, ...]] | None:
    """The literal `static_argnums=` of `call`: the argument and its numbers."""
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value != "static_argnums":
            continue
        value = arg.value
        items = value.elements if type(value) is cst.Tuple else (cst.Element(value),)
        numbers = [e.value for e in items]
        if all(type(n) is cst.Integer for n in numbers):
            return arg, tuple(int(n.value) for n in numbers)  # type: ignore[attr-defined]
        return None
    return None


_SCAN_KEYWORDS = frozenset({"length", "reverse", "unroll"})
_LAMBDA_NAMES = ("module", "carry", "x")


def lifted_scan_fix(
    ctx: FileContext, call: cst.Call, path: Sequence[cst.CSTNode], framework: FrameworkPlugin
) -> NodeFix | None:
    """The rewrite above for `call` (`jax.lax.scan`, `path` ends at it) in a method of a
    Module of `framework` (one with a lifted scan) whose first parameter names the module.
    Unsafe: variables of other
    collections (`batch_stats`) are neither broadcast nor carried, and random streams are
    not split per step."""
    positional = [a for a in call.args if a.keyword is None]
    keywords = [a for a in call.args if a.keyword is not None]
    if len(positional) != 3 or any(a.star for a in call.args):
        return None
    if any(a.keyword.value not in _SCAN_KEYWORDS for a in keywords):  # type: ignore[union-attr]
        return None
    method = next((n for n in path if type(n) is cst.FunctionDef), None)
    owner = path[path.index(method) - 2] if method is not None and path.index(method) >= 2 else None
    if method is None or type(owner) is not cst.ClassDef:
        return None
    params = method.params.params
    if not params or method.params.posonly_params:
        return None
    receiver = params[0].name.value
    code = ctx.module.code_for_node
    body, init, xs = (code(a.value) for a in positional)
    if set(_LAMBDA_NAMES) & {
        n.value for n in descendants(positional[0].value) if type(n) is cst.Name
    }:
        return None
    if framework.import_as is None or framework.lifted_scan_options is None:
        return None
    nn, imported = ctx.import_name(*framework.import_as)
    options = ", ".join(
        [*framework.lifted_scan_options] + [f"{a.keyword.value}={code(a.value)}" for a in keywords]  # type: ignore[union-attr]
    )
    module, carry, x = _LAMBDA_NAMES
    text = (
        f"{nn}.scan(lambda {module}, {carry}, {x}: {body}({carry}, {x}), {options})"
        f"({receiver}, {init}, {xs})"
    )
    if "\n" in body or "\n" in init or "\n" in xs:
        return None
    return NodeFix(
        "unsafe",
        f"use {framework.display}'s `{nn}.scan`, with the parameters broadcast to every step",
        ((call, text),),
        (imported,) if imported else (),
    )
