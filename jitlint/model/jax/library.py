"""What library code does to values: JAX, NumPy and Python builtins called from the code the
model interprets, methods of arrays, containers and strings, and the attributes of arrays.

Plain rules over the tables of `api.py`; a call the tables do not know returns unknown (part 2
of the model adds generated facts). Where JAX keeps the structure of an argument (collectives,
`tree_map`), the result keeps it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jitlint.model.domain import plugins
from jitlint.model.domain.values import (
    ITEMS,
    MAYBE_KEY,
    PLAIN_OBJECT,
    PYTHON_SET,
    PYTREE,
    STATIC,
    TRACED,
    UNKNOWN,
    Array,
    Dict,
    Foreign,
    Object,
    Ref,
    S,
    Scalar,
    Seq,
    U,
    Value,
    combine,
    container,
    first_traced,
    join,
    join_all,
    traced,
)
from jitlint.model.jax.api import (
    ARRAY_METHODS,
    CONCRETIZING_METHODS,
    JAX_BOOLEAN,
    JAX_SEQUENCE_RESULTS,
    MAPPING_METHODS,
    NUMPY_LIST_DISPATCH,
    SHAPE_ATTRIBUTES,
    UNPROBED_COLLECTIVES,
    call_kind,
)
from jitlint.model.jax.frameworks import flattened, nnx
from jitlint.model.jax.pytree_fields import STATIC_FIELD, Instance
from jitlint.model.library import jax_facts

Args = Sequence[tuple[str | None, Value]]

_LIST_RESULTS = frozenset(
    f"jax.numpy.{n}"
    for n in ("split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid", "broadcast_arrays")
)
_ONE_OR_TUPLE = frozenset(
    {"jax.numpy.where", "jax.numpy.unique", "jax.numpy.atleast_1d", "jax.numpy.atleast_2d",
     "jax.numpy.atleast_3d"}
)  # fmt: skip
_INT_BUILTINS = frozenset({"builtins.len", "builtins.id", "builtins.hash"})
_BOOL_BUILTINS = frozenset(
    {"builtins.isinstance", "builtins.issubclass", "builtins.callable", "builtins.hasattr"}
)
_STR_BUILTINS = frozenset({"builtins.str", "builtins.repr", "builtins.format"})


def positional(args: Args) -> list[Value]:
    return [v for k, v in args if k is None]


def keyword(args: Args, name: str) -> Value | None:
    for k, v in args:
        if k == name:
            return v
    return None


def jax_result(qualname: str, args: Args, why: tuple[Any, ...]) -> Value:
    """The result of a JAX function (not a transformation) inside traced code."""
    values = positional(args)
    if qualname in jax_facts.pass_through():
        return values[0] if len(args) == 1 and values else U  # its argument, tracers and all
    if qualname in jax_facts.tree_mapping():
        # Its argument's structure, every leaf an array: an array only for an array.
        return arrays(values[0], why) if values else U
    facts = jax_facts.collective(qualname)
    if facts is not None and facts.returns_structure:
        return collective(values[0] if values else U, why, facts.constant_gives_python_value)
    if qualname in UNPROBED_COLLECTIVES:
        return collective(values[0] if values else U, why, None)
    if qualname in _LIST_RESULTS:
        return Seq("list", elem=traced(why))
    if qualname in _ONE_OR_TUPLE:
        if qualname == "jax.numpy.where" and len(values) >= 3:
            return traced(why)
        if qualname == "jax.numpy.unique" and not any(
            k is not None and k.startswith("return_") for k, _ in args
        ):
            return traced(why)
        if qualname.startswith("jax.numpy.atleast_") and len(args) == 1 and args[0][0] is None:
            return traced(why)
        return Value(PYTREE, why)
    if qualname in JAX_SEQUENCE_RESULTS or qualname in plugins.pytree_results():  # pytrees
        return Value(PYTREE, why)
    return traced(why, boolean=qualname in JAX_BOOLEAN)


def collective(value: Value, why: tuple[Any, ...] | None, constants: bool | None) -> Value:
    """What `lax.psum`/`pmean`/`all_gather`... return for their first argument: the same
    structure (jax's facts say which do). `constants`: whether a Python scalar leaf comes back
    a Python scalar (`psum(1, axis)` is the axis size) or an array (`all_gather(1, axis)`);
    None when not known."""
    if isinstance(value, Array):
        return Array(value.why or why, dtype=value.dtype, sure=value.sure)
    if value.kind == TRACED:
        return traced(value.why)
    if isinstance(value, Scalar):
        if value.pytype not in ("int", "float", "bool") or constants is None:
            return U
        return Scalar(value.pytype) if constants else traced(why)
    if isinstance(value, Seq):
        if value.items is not None:
            return Seq(value.pytype, [collective(v, why, constants) for v in value.items])
        return Seq(value.pytype, elem=collective(value.elem, why, constants))
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: collective(v, why, constants) for k, v in value.entries.items()})
        return Dict(elem=collective(value.elem, why, constants))
    if value.kind == PYTREE and type(value) is Value:
        return Value(PYTREE, value.why)
    return U


def arrays(value: Value, why: tuple[Any, ...]) -> Value:
    """`value` with every leaf an array, as a jitted or vmapped function returns it."""
    return map_leaves(value, lambda leaf: _as_array(leaf, why))


def _as_array(value: Value, why: tuple[Any, ...]) -> Value:
    if isinstance(value, Array):
        return Array(value.why or why, dtype=value.dtype, rank=value.rank)
    if isinstance(value, Scalar):
        if value.pytype in ("int", "float", "bool", "complex"):
            return Array(why, dtype=value.pytype, rank=0)
        return value if value.pytype == "None" else U
    if isinstance(value, (Object, Ref)):
        return U
    return Value(PYTREE, value.why or why)


def map_leaves(value: Value, on_leaf: Callable[[Value], Value]) -> Value:
    """`value`'s list, tuple and dict structure, with `on_leaf` applied to everything else
    it holds."""
    if isinstance(value, Seq):
        if value.items is not None:
            return Seq(value.pytype, [map_leaves(v, on_leaf) for v in value.items])
        return Seq(value.pytype, elem=map_leaves(value.elem, on_leaf))
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: map_leaves(v, on_leaf) for k, v in value.entries.items()})
        return Dict(elem=map_leaves(value.elem, on_leaf))
    return on_leaf(value)


def builtin_result(qualname: str, args: Args, star: bool) -> Value | None:
    """The result of a Python builtin whose result the model knows, else None."""
    values = positional(args)
    if qualname in _INT_BUILTINS:
        return Scalar("int")
    if qualname in _BOOL_BUILTINS:
        return Scalar("bool")
    if qualname in _STR_BUILTINS:
        return Scalar("str")
    if star:
        return None
    if qualname == "builtins.object" and not args:
        return PLAIN_OBJECT
    if qualname in ("builtins.list", "builtins.tuple", "builtins.sorted", "builtins.reversed"):
        pytype = "tuple" if qualname == "builtins.tuple" else "list"
        if not values:
            return Seq(pytype, ())
        source = values[0]
        if isinstance(source, Seq) and qualname in ("builtins.list", "builtins.tuple"):
            return Seq(pytype, source.items, source.elem)
        return Seq(pytype, elem=source.element())
    if qualname in ("builtins.set", "builtins.frozenset"):
        return PYTHON_SET
    if qualname == "builtins.range":
        return Seq("range", elem=Scalar("int"))
    if qualname == "builtins.enumerate" and values:
        return Seq("enumerate", elem=Seq("tuple", [Scalar("int"), values[0].element()]))
    if qualname == "builtins.zip" and values:
        return Seq("zip", elem=Seq("tuple", [v.element() for v in values]))
    if qualname == "builtins.dict" and not values:
        return Dict({k: v for k, v in args if k is not None})
    if qualname in ("builtins.int", "builtins.float", "builtins.bool", "builtins.complex"):
        if all(v.kind == STATIC for v in values):
            return Scalar(qualname.removeprefix("builtins."))
        return None
    if qualname in ("builtins.sum", "builtins.max", "builtins.min") and values:
        items = [values[0].element()] if len(values) == 1 else values
        if all(isinstance(v, Scalar) for v in items):
            pytypes = {v.pytype for v in items}  # type: ignore[union-attr]
            return Scalar(pytypes.pop() if len(pytypes) == 1 else None)
        if qualname == "builtins.sum":
            return combine(items)
        return None
    if qualname in ("builtins.any", "builtins.all") and values:
        if values[0].element().kind == STATIC:
            return Scalar("bool")
        return None
    return None


def call_result(
    qualname: str,
    args: Args,
    star: bool,
    why: tuple[Any, ...],
    compile_time: bool,
    eager: bool = False,
) -> Value:
    """A call of a library function (not a transformation), by its qualified name.
    `compile_time`: inside `ensure_compile_time_eval`; `eager`: where nothing on the path
    stages (vmap or grad alone), a JAX operation is traced only when an input is, but a
    collective still answers over the named axis."""
    values = positional(args)
    kind = call_kind(qualname)
    if kind == "jax":
        if compile_time or (eager and not _collective(qualname)):
            return _run_now(qualname, args, why)
        return jax_result(qualname, args, why)
    if qualname in plugins.array_results():
        return traced(why)
    if qualname.startswith("builtins."):
        found = builtin_result(qualname, args, star)
        if found is not None:
            return found
    if kind == "static":
        return S
    if kind == "same":
        return combine(values)
    if kind == "container":
        return container(values)
    if kind == "dispatch":
        hit = first_traced(values)
        if hit is not None:
            piece = traced(hit.why, sure=isinstance(hit, Array) and hit.sure)
            return Seq("list", elem=piece) if qualname in NUMPY_LIST_DISPATCH else piece
    if qualname.startswith("numpy.") and kind != "unknown":
        if _numpy_array(qualname) and first_traced(values) is None:
            return Array(jax=False)  # a NumPy constructor returns an array (or raises)
        if all(v.kind == STATIC for v in values):
            return S
        return U
    if kind != "unknown" and all(v.kind == STATIC for _, v in args):
        return S
    return U


def _run_now(qualname: str, args: Args, why: tuple[Any, ...]) -> Value:
    """A JAX operation that runs as it is called (nothing on the path stages it): traced
    only when an input is. Its result is a JAX array (or the structure `jax_result` gives)
    whatever it was given, so a NumPy input does not make a NumPy result: with no traced
    input it is a concrete JAX value, a constant to what traces it later."""
    combined = combine(positional(args))
    if isinstance(combined, Array) and not combined.jax:  # `jnp.asarray(np_table)`
        return from_python(jax_result(qualname, args, why))
    return combined


def _collective(qualname: str) -> bool:
    """Whether `qualname` reads a named axis (`psum`, `axis_index`): its result depends on
    the mapped axis whatever its inputs."""
    return (
        jax_facts.collective(qualname) is not None
        or qualname in UNPROBED_COLLECTIVES
        or jax_facts.axis_collective(qualname) is not None
    )


_NUMPY_SCALARS = ("numpy.float", "numpy.int", "numpy.uint", "numpy.bool", "numpy.complex")


def _numpy_array(qualname: str) -> bool:
    """Whether a NumPy function on Python values returns an array (not a scalar or dtype)."""
    if qualname.startswith(_NUMPY_SCALARS) or qualname.startswith("numpy.random."):
        return False
    leaf = qualname.rsplit(".", 1)[1]
    return leaf in _NUMPY_CONSTRUCTORS


_NUMPY_CONSTRUCTORS = frozenset(
    {
        "array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
        "identity", "zeros_like", "ones_like", "empty_like", "full_like", "stack", "concatenate",
        "vstack", "hstack", "tile", "repeat", "diag", "tri", "tril", "triu", "meshgrid",
        "logspace", "geomspace", "copy", "ascontiguousarray", "indices",
    }
)  # fmt: skip


def method_result(receiver: Value, method: str, args: Args) -> Value | None:
    """`receiver.method(...)` for receivers the model knows the methods of, else None."""
    if isinstance(receiver, Array):
        if method in CONCRETIZING_METHODS:
            return U
        if method == "item" or method == "tolist":
            return U
        if receiver.jax:
            return traced(receiver.why, sure=receiver.sure)
        return Array(jax=False) if method in ARRAY_METHODS or method == "copy" else None
    if isinstance(receiver, Dict):
        if method == "keys":
            return Seq("list", elem=Scalar())
        if method == "values":
            return Seq("list", elem=receiver.elem)
        if method == "items":
            return Seq("list", elem=Seq("tuple", [Scalar(), receiver.elem]))
        if method in ("get", "pop"):
            values = positional(args)
            key = values[0] if values else U
            found = (
                receiver.get(key.const) if isinstance(key, Scalar) and key.known else receiver.elem
            )
            return join(found, values[1]) if len(values) > 1 else found
        if method == "copy":
            return receiver
        return None
    if isinstance(receiver, Seq):
        if method in ("index", "count"):
            return Scalar("int")
        if method == "copy":
            return receiver
        return None
    if isinstance(receiver, Scalar) and receiver.pytype == "str":
        if method in ("format", "join", "lower", "upper", "strip", "replace", "title"):
            return Scalar("str")
        if method in ("startswith", "endswith", "isdigit"):
            return Scalar("bool")
        if method == "split":
            return Seq("list", elem=Scalar("str"))
        return None
    if receiver.traced and type(receiver) is Value:  # a traced pytree of unknown structure
        if method in CONCRETIZING_METHODS:
            return U
        if receiver.kind == TRACED or method in ARRAY_METHODS:
            return traced(receiver.why, sure=False)
        if method == "keys":
            return S  # the keys of a pytree are its static structure
        if method == "items":
            return Value(PYTREE, receiver.why, pytype=ITEMS)
        if method in MAPPING_METHODS:
            return Value(PYTREE, receiver.why)
        return U
    return None


# The attributes (not methods) of a JAX array that are arrays themselves (or `.at`, its
# indexer); jax.Array has no other attribute holding traced data.
_ARRAY_VALUED_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "at"})
# The shape attributes that are Python ints (in a tuple, for `shape`) on any array.
_INT_SHAPE_ATTRIBUTES = frozenset({"shape", "ndim"})


def array_attribute(base: Value, attr: str) -> Value | None:
    """An attribute of an array (or of a traced value), else None."""
    if attr in SHAPE_ATTRIBUTES and (base.traced or isinstance(base, Array)):
        if attr == "shape":
            rank = base.rank if isinstance(base, Array) else None
            if rank is not None:
                return Seq("tuple", [Scalar("int")] * rank)
            return Seq("tuple", elem=Scalar("int"))
        if attr in ("ndim", "size", "itemsize", "nbytes"):
            return Scalar("int")
        return S
    if isinstance(base, Array):
        if attr in _ARRAY_VALUED_ATTRIBUTES:
            return Array(base.why, jax=base.jax, dtype=base.dtype, sure=base.sure)
        return None
    found = unknown_shape_attribute(base, attr)
    if found is not None:
        return found
    if attr in SHAPE_ATTRIBUTES:
        return S
    if base.kind == TRACED:
        # Certainly one JAX array: an attribute arrays lack (`input.irreps`) is only read
        # where some other value got there (past `if not isinstance(input, Tagged): raise`).
        return traced(base.why) if attr in _ARRAY_VALUED_ATTRIBUTES else None
    if base.kind == PYTREE and type(base) is Value:
        return traced(base.why, sure=False) if attr in _ARRAY_VALUED_ATTRIBUTES else U
    return None


def unknown_shape_attribute(base: Value, attr: str) -> Value | None:
    """`.shape`/`.ndim` of a value the model does not know (what a layer, a library or a
    module of the project returned): one that has a shape is an array, JAX or NumPy, whose
    shape holds Python ints, never None. None for other attributes and known values."""
    if attr not in _INT_SHAPE_ATTRIBUTES:
        return None
    if type(base) is not Value and not (isinstance(base, Foreign) and base.role == "instance"):
        return None
    return Seq("tuple", elem=Scalar("int")) if attr == "shape" else Scalar("int")


def iterated_unknown(value: Value) -> Value:
    """What iterating a pytree of unknown structure yields (see values.MAYBE_KEY)."""
    return Value(PYTREE, value.why, pytype=MAYBE_KEY)


def tree_leaf(value: Value) -> Value:
    """A leaf of `value` as `tree_map` hands it to its function."""
    if isinstance(value, (Seq, Dict)):
        return tree_leaf(value.elem)
    if isinstance(value, (Array, Scalar)):
        return value
    if value.traced and type(value) is Value:
        return traced(value.why, sure=False)
    return U


def tree_like(value: Value, leaf: Value) -> Value:
    """`value`'s structure with every leaf `leaf` (the result of `tree_map`)."""

    def replaced(old: Value) -> Value:
        if isinstance(old, (Array, Scalar)):
            return leaf
        return Value(PYTREE, leaf.why) if leaf.traced else U

    return map_leaves(value, replaced)


def leaves_of(value: Value) -> Value:
    """`jax.tree_util.tree_leaves(value)`: a list of its leaves."""
    leaf = tree_leaf(value)
    return Seq("list", elem=leaf)


def aux(value: Value, why: tuple[Any, ...]) -> Value:
    """The auxiliary output of a differentiated function (`has_aux=True`): returned as the
    function made it, where what the model could not follow was computed while tracing, from
    traced values (as any output of a transformed function): a pytree of tracers."""
    if isinstance(value, Seq):
        if value.items is not None:
            return Seq(value.pytype, [aux(v, why) for v in value.items])
        return Seq(value.pytype, elem=aux(value.elem, why))
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: aux(v, why) for k, v in value.entries.items()})
        return Dict(elem=aux(value.elem, why))
    if value.kind == UNKNOWN and type(value) is Value:
        return Value(PYTREE, why)
    return value


def rewhy(value: Value, why: tuple[Any, ...]) -> Value:
    """`value` with a new provenance (its structure unchanged)."""
    if isinstance(value, Array):
        return Array(why, jax=value.jax, boolean=value.boolean, dtype=value.dtype,
                     rank=value.rank, sure=value.sure)  # fmt: skip
    if type(value) is Value:
        return Value(value.kind, why, value.boolean, value.pytype)
    if isinstance(value, Seq):
        return Seq(value.pytype, value.items, value.elem, why)
    if isinstance(value, Dict):
        return Dict(value.entries, value.elem, why)
    return value


def tracerize(value: Value, why: tuple[Any, ...]) -> Value:
    """An argument as a jitted (or vmapped, or lax) function sees it: every leaf a tracer."""
    if why and why[0] in ("param", "passed") and isinstance(value, (Seq, Dict, Object)):
        # A leaf inside the argument: explained as the argument, but not the argument itself
        # (making the parameter static is no remedy for a pytree of arrays).
        inner = ("leaf", *why[1:])
        return _tracerize(value, inner, why)
    return _tracerize(value, why, why)


def _tracerize(value: Value, why: tuple[Any, ...], top: tuple[Any, ...]) -> Value:
    if isinstance(value, Array):
        return Array(why, dtype=value.dtype, rank=value.rank, boolean=value.boolean)
    if isinstance(value, Scalar):
        if value.pytype in ("int", "float", "bool", "complex"):
            return Array(why, dtype=value.pytype, rank=0, boolean=value.pytype == "bool")
        if value.pytype == "None":
            return value
        return U
    if isinstance(value, Seq):
        if value.pytype not in ("list", "tuple"):
            return U
        if value.items is not None:
            return Seq(value.pytype, [_tracerize(v, why, top) for v in value.items], why=top)
        return Seq(value.pytype, elem=_tracerize(value.elem, why, top), why=top)
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: _tracerize(v, why, top) for k, v in value.entries.items()}, why=top)
        return Dict(elem=_tracerize(value.elem, why, top), why=top)
    if isinstance(value, Object):
        cls = value.cls
        if cls.registered:  # flattened by functions of its own
            flat = flattened.flattening(cls)
            if flat is None:
                return Value(PYTREE, why)
            fields = {a: _tracerize(value.fields.get(a, U), why, top) for a in flat.children}
            # Aux data is static: what the caller stored, a constant inside the trace.
            fields.update({a: from_python(value.fields.get(a, U)) for a in flat.aux})
            return Object(cls, fields, kind=PYTREE, why=top)
        if plugins.has(cls.kind, "graph_split"):  # nnx.jit: the graph static, the state traced
            return nnx.split(value, lambda v: _tracerize(v, why, top), top)
        if not plugins.has(cls.kind, "pytree"):
            return U
        declared = cls.pytree
        fields = {}
        for name, field in value.fields.items():
            static = declared is not None and declared.fields.get(name) == STATIC_FIELD
            fields[name] = field if static else _tracerize(field, why, top)
        instance = Instance(declared, "jit") if declared is not None else None
        return Object(cls, fields, kind=PYTREE, why=top, declared=instance)
    if isinstance(value, Ref):
        return U
    if value.kind == TRACED:
        return Array(why, sure=False)
    return Value(PYTREE, why)


def filtered(value: Value, why: tuple[Any, ...]) -> Value:
    """An argument as `equinox.filter_jit` sees it: arrays traced, everything else static."""
    if isinstance(value, Array):
        return Array(why, dtype=value.dtype, rank=value.rank, boolean=value.boolean)
    if isinstance(value, (Scalar, Ref)):
        return value
    if isinstance(value, Seq) and value.items is not None:
        return Seq(value.pytype, [filtered(v, why) for v in value.items])
    if isinstance(value, Dict) and value.entries is not None:
        return Dict({k: filtered(v, why) for k, v in value.entries.items()})
    if isinstance(value, Object):
        return value
    return U


def from_python(value: Value) -> Value:
    """A value computed in Python (the module, an untraced function) as traced code sees it
    when it closes over it: fixed when the function is traced. A JAX array made there is a
    concrete constant, not a tracer (NumPy may read it), so it is a plain Python value."""
    if isinstance(value, Array):
        return value if not value.jax else S
    if isinstance(value, (Scalar, Ref, Object)):
        return value
    if isinstance(value, Seq):
        if value.items is not None:
            return Seq(value.pytype, [from_python(v) for v in value.items])
        return Seq(value.pytype, elem=from_python(value.elem))
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: from_python(v) for k, v in value.entries.items()})
        return Dict(elem=from_python(value.elem))
    if value.kind == STATIC and isinstance(value.pytype, str):
        return Value(STATIC, pytype=value.pytype)  # a Python list stays one
    return S if value.kind == STATIC else U


__all__ = [
    "array_attribute",
    "arrays",
    "aux",
    "builtin_result",
    "call_result",
    "collective",
    "filtered",
    "from_python",
    "iterated_unknown",
    "jax_result",
    "join_all",
    "leaves_of",
    "method_result",
    "rewhy",
    "tracerize",
    "tree_leaf",
    "tree_like",
    "unknown_shape_attribute",
]
