"""equinox: an `eqx.Module` is a frozen dataclass and a pytree. Its `__hash__` hashes its
fields, so an instance holding a JAX array (directly or in a submodule such as
`eqx.nn.MLP`) cannot be hashed: `jax.jit` with `self` static fails on the first call
(ValueError: Non-hashable static arguments are not supported).

[the enactive seed's repro.py and bench/cases/jax-modules/eqx_*.py record it at run time (jax
0.10.2, equinox 0.13.8); tests/test_frameworks.py]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.model.domain.classes import Classes, ClassInfo
from jitlint.model.domain.plugins import (
    ABSTRACT,
    GRAD,
    HASH_LEAVES,
    CallArgs,
    Contract,
    FieldHelper,
    FrameworkPlugin,
    TransformSpec,
    plugin,
    plugins,
)
from jitlint.model.domain.values import NONE, Array, Object, Scalar, Seq, U, Value
from jitlint.python.names import Names

_ARRAYS = frozenset({"jax.Array", "jax.numpy.ndarray", "jaxtyping.Array"})
_STATIC_FIELDS = frozenset({"equinox.field", "equinox.static_field"})
KIND = "equinox"
_LAYERS = "equinox.nn."
IMPORT_AS = ("equinox", "eqx")  # how fixes import it


@dataclass(frozen=True)
class ArrayHolder:
    """Why instances of a class hold an array: `field` and what it holds. `certain` is False
    when the class is an equinox module only by the look of its fields (a base of another
    file, which may or may not be `eqx.Module`)."""

    field: str
    holds: str
    certain: bool


def array_holder(classes: Classes, info: ClassInfo, depth: int = 0) -> ArrayHolder | None:
    """Whether instances of `info` (an equinox module, or a class with a base of another
    file) hold an array in a field its body declares; None when not known to."""
    if depth > 3 or any("__hash__" in c.methods or "__hash__" in c.attributes for c in info.mro):
        return None
    kind = info.kind
    if kind == KIND:
        certain = True
    elif kind is None and info.imported_bases and not info.methods.get("__eq__"):
        certain = False  # `class P(ProcessorBase)`: only its fields suggest equinox
    else:
        return None
    names = classes.names
    for owner in info.mro:
        path = [*owner.path, owner.node, owner.node.body]
        for name, annotation, default in owner.fields:
            if _static(names, default, path):
                continue
            holds = _holds(classes, names, annotation, path, depth)
            if holds is not None:
                return ArrayHolder(name, holds, certain)
    return None


def _static(names: Names, default: cst.BaseExpression | None, path: Sequence[cst.CSTNode]) -> bool:
    """`eqx.field(static=True)` and the like: not a leaf (anything but a plain default is
    taken as possibly static)."""
    if type(default) is not cst.Call:
        return False
    func = default.func  # type: ignore[attr-defined]
    if type(func) not in (cst.Name, cst.Attribute):
        return True
    return names.resolves_to(func, path, _STATIC_FIELDS)  # type: ignore[arg-type]


def _holds(
    classes: Classes,
    names: Names,
    annotation: cst.BaseExpression,
    path: Sequence[cst.CSTNode],
    depth: int,
) -> str | None:
    if type(annotation) not in (cst.Name, cst.Attribute):
        return None
    qualnames = names.qualified_names(annotation, path)
    if len(qualnames) != 1:
        return None
    qualname = next(iter(qualnames))
    if qualname in _ARRAYS:
        return "an array"
    if qualname.startswith(_LAYERS) and qualname.count(".") == 2:
        return f"an `eqx.nn.{qualname.rsplit('.', 1)[1]}` (whose weights are arrays)"
    local = classes.resolve(annotation, path)
    if local is not None and local.kind == KIND:
        inner = array_holder(classes, local, depth + 1)
        if inner is not None and inner.certain:
            return f"a `{local.name}` module holding {inner.holds}"
    return None


def static_array_fields(classes: Classes, info: ClassInfo) -> list[tuple[str, cst.Call]]:
    """Fields an equinox module or flax struct dataclass declares static (auxiliary data)
    while annotating them as JAX arrays: jit compares the aux data of every call's
    argument with the cached ones, and `==` of two arrays has no single truth value."""
    kind = plugin(info.kind)
    if kind is None or not any(h.flag for h in kind.field_helpers):
        return []
    # A field helper with a flag, of any framework: (keyword, the name that makes it static).
    static_option = {
        h.qualname: (h.flag, str(h.static_when))
        for p in plugins()
        for h in p.field_helpers
        if h.flag
    }
    names = classes.names
    path = [*info.path, info.node, info.node.body]
    out = []
    for name, annotation, default in info.fields:
        if type(default) is not cst.Call or type(annotation) not in (cst.Name, cst.Attribute):
            continue
        func = default.func  # type: ignore[attr-defined]
        if type(func) not in (cst.Name, cst.Attribute):
            continue
        qualnames = names.qualified_names(func, path)
        if len(qualnames) != 1 or next(iter(qualnames)) not in static_option:
            continue
        option, flag = static_option[next(iter(qualnames))]
        given = [a for a in default.args if a.keyword is not None and a.keyword.value == option]  # type: ignore[attr-defined]
        if len(given) != 1 or type(given[0].value) is not cst.Name:
            continue
        if given[0].value.value != flag:  # type: ignore[attr-defined]
            continue
        if names.resolves_to(annotation, path, _ARRAYS):  # type: ignore[arg-type]
            out.append((name, default))  # type: ignore[arg-type]
    return out


PARTITION, COMBINE = "equinox.partition", "equinox.combine"
# Filters `eqx.partition` is commonly given, and which field values they keep.
_FILTERS = {"equinox.is_array": ("array",), "equinox.is_array_like": ("array", "scalar")}


def partition(module: Value, filter_name: str | None) -> Value | None:
    """`eqx.partition(module, eqx.is_array)`: two copies of the module, the first keeping
    the fields the filter selects (None elsewhere), the second the others. Fields whose
    value is unknown stay unknown in both. None when the module or filter is not known."""
    kinds = _FILTERS.get(filter_name or "")
    if kinds is None or not isinstance(module, Object) or module.cls.kind != KIND:
        return None
    kept: dict[str, Value] = {}
    rest: dict[str, Value] = {}
    for name, value in module.fields.items():
        selected = _selected(value, kinds)
        if selected is None:
            kept[name] = rest[name] = U
        else:
            kept[name] = value if selected else NONE
            rest[name] = NONE if selected else value
    halves = []
    for fields in (kept, rest):
        half = Object(module.cls, fields, why=module.why, declared=module.declared)
        half.made_at = module.made_at
        halves.append(half)
    return Seq("tuple", halves)


def _selected(value: Value, kinds: tuple[str, ...]) -> bool | None:
    if isinstance(value, Array):
        return True
    if isinstance(value, Scalar) and value.pytype in ("int", "float", "bool", "complex"):
        return "scalar" in kinds
    if isinstance(value, Scalar) or value is NONE:
        return False
    return None


def combine(trees: list[Value]) -> Value | None:
    """`eqx.combine(a, b)`: for each field, the first value that is not None."""
    if not trees or not all(isinstance(t, Object) for t in trees):
        return None
    first: Object = trees[0]  # type: ignore[assignment]
    if any(t.cls is not first.cls for t in trees):  # type: ignore[attr-defined]
        return None
    fields: dict[str, Value] = {}
    for name in first.fields:
        values = [t.fields.get(name, U) for t in trees]  # type: ignore[attr-defined]
        if any(v is U for v in values):
            fields[name] = U
            continue
        fields[name] = next((v for v in values if v is not NONE), NONE)
    return Object(first.cls, fields, why=first.why, declared=first.declared)


def _partition_call(call: CallArgs) -> Value | None:
    args = call.args
    if len(args) >= 2 and args[1][0] is None and not call.star:
        return partition(args[0][1], call.argument_name(1))
    return None


def _combine_call(call: CallArgs) -> Value | None:
    if not call.star and all(k is None for k, _ in call.args):
        return combine([v for _, v in call.args])
    return None


# `eqxi.doc_repr(obj, "name")` gives `obj` back (a prettier repr only while docs build):
# lineax's `sentinel = eqxi.doc_repr(object(), "sentinel")` is a bare object.
DOC_REPR = "equinox.internal.doc_repr"


def _doc_repr_call(call: CallArgs) -> Value | None:
    args = call.args
    if args and args[0][0] is None and not call.star:
        return args[0][1]
    return None


PLUGIN = FrameworkPlugin(
    KIND,
    "equinox",
    packages=("equinox",),
    aliases=("eqx",),
    class_bases=frozenset({"equinox.Module"}),
    generated_init=True,
    post_init=True,
    check_init=True,
    pytree=True,
    declared_leaves=True,
    field_helpers=(
        FieldHelper("equinox.static_field"),
        FieldHelper("equinox.field", "static", True),
    ),
    hash_by=HASH_LEAVES,  # equinox hashes the module's leaves
    contract=Contract(
        KIND,
        frozenset({"__call__"}),
        "equinox modules are meant to be",
        public=True,
        constructor_when_asked=True,
        array_leaves_traced=True,
        immutable=True,
    ),
    transforms=(
        TransformSpec(("equinox.filter_jit",), ABSTRACT, "filter", verb="compiles"),
        TransformSpec(("equinox.filter_vmap",), ABSTRACT, "filter", stages=False),
        TransformSpec(("equinox.filter_pmap",), ABSTRACT, "filter"),
        TransformSpec(
            ("equinox.filter_grad", "equinox.filter_value_and_grad"),
            GRAD,
            "grad",
            verb="differentiates",
            stages=False,
        ),
        TransformSpec(("equinox.filter_checkpoint",), ABSTRACT, "ckpt"),
    ),
    shape_params={
        "equinox.nn.Linear": ((0, 1), ("in_features", "out_features")),
        "equinox.nn.MLP": ((0, 1, 2, 3), ("in_size", "out_size", "width_size", "depth")),
    },
    switchable_layers=(_LAYERS,),
    import_as=IMPORT_AS,
    call_hooks={PARTITION: _partition_call, COMBINE: _combine_call, DOC_REPR: _doc_repr_call},
)
