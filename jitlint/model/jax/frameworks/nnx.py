"""flax nnx: a Module is a Python object graph. `nnx.jit` splits each Module argument into
its graph (static: the Python attributes, lists of submodules) and its state (Variables and
arrays, traced), so inside the trace `self.models[t]` indexes a Python list and an int
attribute keeps its value. `nnx.List([...])` is a list of what it was given.

[bench/cases/jax-modules/nnx_*.py record it at run time (jax 0.10.2, flax 0.12.8);
tests/test_frameworks.py]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jitlint.model.domain.plugins import (
    ABSTRACT,
    GRAD,
    CallArgs,
    Contract,
    FrameworkPlugin,
    TransformSpec,
)
from jitlint.model.domain.values import Array, Dict, Object, Seq, Value

KIND = "nnx"
LIST = "flax.nnx.List"


def list_of(args: list[tuple[str | None, Value]]) -> Value | None:
    """`nnx.List(items)`: a list of the items; None when not a plain call with a list."""
    if len(args) != 1 or args[0][0] is not None:
        return None
    given = args[0][1]
    if not isinstance(given, Seq):
        return None
    if given.items is not None:
        return Seq("list", list(given.items))
    return Seq("list", elem=given.elem)


def split(obj: Object, convert: Callable[[Value], Value], why: Any) -> Object:
    """A Module as `nnx.jit` hands it to the traced function: arrays (state) traced by
    `convert`, containers and submodules followed, other attributes kept (static)."""
    return Object(obj.cls, _fields(obj, convert, 0), why=why)


def _fields(obj: Object, convert: Callable[[Value], Value], depth: int) -> dict[str, Value]:
    return {name: _split_value(v, convert, depth) for name, v in obj.fields.items()}


def _split_value(value: Value, convert: Callable[[Value], Value], depth: int) -> Value:
    if depth > 4:
        return Value(value.kind) if not isinstance(value, Array) else convert(value)
    if isinstance(value, Array):
        return convert(value)
    if isinstance(value, Seq):
        if value.items is not None:
            return Seq(value.pytype, [_split_value(v, convert, depth + 1) for v in value.items])
        return Seq(value.pytype, elem=_split_value(value.elem, convert, depth + 1))
    if isinstance(value, Dict) and value.entries is not None:
        return Dict({k: _split_value(v, convert, depth + 1) for k, v in value.entries.items()})
    if isinstance(value, Object) and value.cls.kind == KIND:
        return Object(value.cls, _fields(value, convert, depth + 1), why=value.why)
    return value


def _list_call(call: CallArgs) -> Value | None:
    return None if call.star else list_of(call.args)


PLUGIN = FrameworkPlugin(
    KIND,
    "flax nnx",
    packages=("flax",),
    class_bases=frozenset({"flax.nnx.Module"}),
    graph_split=True,
    contract=Contract(KIND, frozenset({"__call__"}), "flax modules are meant to be"),
    transforms=(
        TransformSpec(("flax.nnx.jit",), ABSTRACT, "jit", verb="compiles"),
        TransformSpec(("flax.nnx.vmap",), ABSTRACT, "vmap", stages=False),
        TransformSpec(
            ("flax.nnx.grad", "flax.nnx.value_and_grad"),
            GRAD,
            "grad",
            verb="differentiates",
            stages=False,
        ),
        TransformSpec(("flax.nnx.remat",), ABSTRACT, "ckpt"),
        TransformSpec(("flax.nnx.shard_map",), ABSTRACT, "shard"),
    ),
    lax_mirrors=("flax.nnx.",),
    shape_params={
        "flax.nnx.Linear": ((0, 1), ("in_features", "out_features")),
        "flax.nnx.Conv": ((0, 1, 2), ("in_features", "out_features", "kernel_size")),
        "flax.nnx.Embed": ((0, 1), ("num_embeddings", "features")),
    },
    switchable_layers=("flax.nnx.",),
    call_hooks={LIST: _list_call},
)
