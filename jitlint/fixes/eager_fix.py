"""Run a `tf.function` as plain Python (eagerly) by dropping its decorator, where it cannot
be made once (JIT207: a local `def` that reads the call's locals, made on every call of a
function that runs repeatedly; JIT206: a function that makes a new variable on every call).

Eager execution runs the same TensorFlow ops on the same values that the traced graph
runs, so the results are the same; what changes is that nothing is traced: no retracing
per call, and no variable limited to the first trace. Unsafe: the function no longer runs
as a graph (slower where it is called many times: no fusion, no XLA), and Python code in
it (a `print`, a counter) now runs on every call instead of once per trace.

Only where the function is used in ways that work the same without the decorator: a
local `def` that its function only calls (`step(x)`) or hands to a TensorFlow API that
takes any Python callable (`tf.while_loop(cond, body, ...)`), and a method that the module
only calls (`obj.method(...)`); never one whose `get_concrete_function` or other
`tf.function` attribute is used. The decorator may only set options that do not change
the values (`jit_compile`, `reduce_retracing`, `autograph`, `experimental_relax_shapes`).

The JAX counterpart (`unjit_fix`, JIT107/JIT108): a function that changes Python state on
every call (`self.n += 1` in a jitted bound method), which jit runs once, while tracing,
or that stores a tracer on such an object, is called without its `jax.jit`:
`fast = jax.jit(counter.count)` becomes `fast = counter.count`. Only a `jax.jit(f)` call
with no options, in this file, that is the one way the function is traced (no other
transformation, no traced caller): the function then runs as Python, as written. Unsafe:
it runs op by op (slower), and returns what its Python code returns (a Python number where
the compiled code returned an array). Making it pure (returning the new state) keeps jit,
but needs a person.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.python.walker import descendants, iter_children

if TYPE_CHECKING:
    from jitlint.model.context import FileContext
    from jitlint.model.jax.tracing import FunctionTrace

_VALUE_KEEPING_OPTIONS = frozenset(
    {"jit_compile", "reduce_retracing", "autograph", "experimental_relax_shapes"}
)


def eager_fix(
    ctx: FileContext, func: cst.FunctionDef, decorator: cst.Decorator, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """Drop `decorator`, the `tf.function` of `func` (`path` ends at it), or None where the
    function is used as more than a callable (see the module's docstring)."""
    if not _keeps_values(decorator) or len(path) < 3:
        return None
    owner = path[-3]  # path: ..., owner, its block, func
    name = func.name.value
    if type(owner) is cst.FunctionDef:
        if not _only_called_locally(ctx, owner, func, path[:-2]):
            return None
    elif type(owner) is cst.ClassDef:
        if not _only_called_as_method(ctx.module, name):
            return None
    else:
        return None
    code = ctx.module.code_for_node
    index = func.decorators.index(decorator)
    if index + 1 < len(func.decorators):
        following = func.decorators[index + 1]
        span: tuple[cst.CSTNode, cst.CSTNode] = (decorator, following.decorator)
        text = f"@{code(following.decorator)}"
    else:
        asynchronous = code(func.asynchronous) if func.asynchronous is not None else ""
        span = (decorator, func.name)
        text = f"{asynchronous}def{code(func.whitespace_after_def)}{name}"
    return NodeFix(
        "unsafe",
        f"run `{name}` eagerly, without `tf.function`: the same ops, never traced (no "
        "graph speed-up)",
        ((span, text),),  # type: ignore[arg-type]
    )


def _keeps_values(decorator: cst.Decorator) -> bool:
    """`@tf.function`, or `@tf.function(...)` with only options that keep the values."""
    expr = decorator.decorator
    if type(expr) is not cst.Call:
        return True
    return all(
        a.keyword is not None and a.keyword.value in _VALUE_KEEPING_OPTIONS for a in expr.args
    )


def _only_called_locally(
    ctx: FileContext,
    owner: cst.FunctionDef,
    func: cst.FunctionDef,
    owner_path: Sequence[cst.CSTNode],
) -> bool:
    """Every other mention of `func`'s name in `owner` calls it, or hands it to a call of a
    TensorFlow API; and `owner` binds the name only with this `def`."""
    name = func.name.value
    if len(ctx.names.scope(owner).bindings.get(name, [])) != 1:
        return False
    parents = _parents(owner)
    for node in descendants(owner):
        if type(node) is not cst.Name or node.value != name or node is func.name:
            continue
        parent = parents.get(id(node))
        if type(parent) is cst.Call and parent.func is node:
            continue
        call = parents.get(id(parent)) if type(parent) is cst.Arg else None
        if type(call) is not cst.Call:
            return False
        called = ctx.names.qualified_names(call.func, [*owner_path, owner, call])
        if not called or not all(n.startswith("tensorflow.") for n in called):
            return False
    return True


def _only_called_as_method(module: cst.Module, name: str) -> bool:
    """Every `x.name` in the module is called (`x.name(...)`), and the bare name is not
    read elsewhere (a method handed on could be asked for its concrete function)."""
    parents = _parents(module)
    for node in descendants(module):
        if type(node) is cst.Attribute and node.attr.value == name:
            parent = parents.get(id(node))
            if type(parent) is not cst.Call or parent.func is not node:
                return False
        elif type(node) is cst.Name and node.value == name:
            parent = parents.get(id(node))
            if type(parent) is not cst.FunctionDef and type(parent) is not cst.Attribute:
                return False
    return True


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    return {id(child): node for node in descendants(root) for child in iter_children(node)}


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
