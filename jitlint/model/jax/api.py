"""What the tracing model knows about the JAX, NumPy and Python APIs: which calls return
tracers inside traced code, which answer from shapes only, which NumPy functions dispatch
to the array's own methods. Plain data, so the static path imports no framework."""

from __future__ import annotations

from jitlint.model.domain import plugins
from jitlint.model.library.jax_facts import axis_size_is_python_int, numpy_names, pass_through
from jitlint.python.builtins_facts import exception_catchers

SHAPE_ATTRIBUTES = frozenset(
    {"shape", "ndim", "dtype", "size", "weak_type", "sharding", "itemsize", "nbytes", "aval"}
)
# jax.numpy functions answering from shapes and dtypes only: their results are Python values.
JAX_STATIC = frozenset(
    f"jax.numpy.{n}"
    for n in (
        "shape", "ndim", "size", "result_type", "dtype", "issubdtype", "iinfo", "finfo",
        "promote_types", "can_cast", "isdtype", "isscalar", "iscomplexobj", "isrealobj",
        "broadcast_shapes",
    )
) | {
    "jax.lax.broadcast_shapes",
    "jax.core.concrete_or_error",
} | ({"jax.lax.axis_size"} if axis_size_is_python_int() else set())  # fmt: skip
JAX_OP_PREFIXES = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.", "jax.ops.")
JAX_STATIC_PREFIXES = ("jax.dtypes.", "jax.tree_util.", "jax.tree.", "jax.debug.", "jax.config.")
JAX_PROCESS = frozenset(
    f"jax.{n}"
    for n in (
        "devices", "device_count", "local_devices", "local_device_count", "process_index",
        "process_count", "default_backend",
    )
)  # fmt: skip
# NumPy functions that call the array's own method, so they accept tracers and return
# what the method returns (a list of pieces for `split`), and those that only read the
# shape or dtype: probed under jax.jit by scripts/gen_jax_facts.py.
NUMPY_LIST_DISPATCH = numpy_names("dispatch_list")
NUMPY_DISPATCH = numpy_names("dispatch") | NUMPY_LIST_DISPATCH
NUMPY_STATIC = numpy_names("static")
BUILTIN_STATIC = frozenset(
    f"builtins.{n}"
    for n in (
        "len", "isinstance", "issubclass", "type", "callable", "hasattr", "id", "range",
        "print", "repr", "str", "hash", "super", "object", "slice", "NotImplementedError",
        "ValueError", "TypeError", "RuntimeError", "AssertionError", "KeyError",
    )
)  # fmt: skip
BUILTIN_CONTAINERS = frozenset(
    f"builtins.{n}"
    for n in ("list", "tuple", "zip", "enumerate", "sorted", "reversed", "iter", "dict", "set")
)
# Methods that only arrays have: on a traced pytree parameter they mean it is an array.
ARRAY_METHODS = frozenset(
    {
        "sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "all", "any",
        "astype", "reshape", "transpose", "squeeze", "ravel", "flatten", "cumsum", "cumprod",
        "dot", "clip", "round", "conj", "conjugate", "swapaxes", "take", "repeat", "sort",
        "argsort", "nonzero", "block_until_ready", "view", "trace", "diagonal",
    }
)  # fmt: skip
# JAX functions returning lists, tuples or pytrees of arrays rather than one array.
JAX_SEQUENCE_RESULTS = frozenset(
    [f"jax.lax.{n}" for n in (
        "scan", "fori_loop", "while_loop", "cond", "switch", "map", "associative_scan",
        "custom_root", "custom_linear_solve", "platform_dependent", "optimization_barrier",
    )]
    + [f"jax.numpy.{n}" for n in (
        "split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid", "nonzero",
        "unravel_index", "tril_indices", "triu_indices", "diag_indices", "indices",
        "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "unique", "histogram",
        "gradient", "frexp", "modf", "divmod", "where", "linalg.eigh", "linalg.svd",
        "linalg.qr", "linalg.slogdet", "linalg.eig",
    )]
)  # fmt: skip
JAX_BOOLEAN = frozenset(
    f"jax.numpy.{n}"
    for n in (
        "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or",
        "logical_not", "logical_xor", "less", "less_equal", "greater", "greater_equal", "equal",
        "not_equal", "isclose", "signbit", "isin", "iscomplex", "isreal",
    )
)  # fmt: skip
# What collectives return comes from jax's facts (model/library/jax_facts.py); these keep the
# structure they are given too, but the generator cannot probe them under `vmap` (jax 0.10.2
# `pbroadcast` rejects a dict there), so what a Python constant gives is not known.
UNPROBED_COLLECTIVES = frozenset({"jax.lax.pbroadcast"})
CONCRETIZING_METHODS = frozenset({"item", "tolist", "__index__", "__bool__", "__float__"})
MAPPING_METHODS = frozenset({"items", "values", "keys", "get", "copy", "pop"})


# jax's tracer errors (a conversion to a bool, a number, a NumPy array) are TypeErrors: a
# handler of TypeError or of one of its bases catches them too.
TRACER_ERROR_CATCHERS = exception_catchers("TypeError")
# The error jax raises when NumPy asks a tracer for its buffer (`np.asarray(tracer)`).
ARRAY_CONVERSION_ERRORS = frozenset(
    {"jax.errors.TracerArrayConversionError", "jax.errors.JAXTypeError"}
)
# The errors jax raises when a tracer is asked for a Python bool or other concrete value
# (`jax.core.ConcretizationTypeError` is an older alias): what a `try` around it catches.
CONCRETIZATION_ERRORS = frozenset(
    {
        "jax.errors.TracerBoolConversionError",
        "jax.errors.ConcretizationTypeError",
        "jax.errors.JAXTypeError",
        "jax.core.ConcretizationTypeError",
    }
)
# `jnp.where(condition, x, y)`: given the condition alone it is `jnp.nonzero(condition)`,
# whose length is counted from the values (bounded by `size=`); given `x` and `y` it selects,
# and the condition does not set the result's dtype.
WHERE = frozenset({"jax.numpy.where"})
WHERE_OPERANDS = frozenset({"x", "y"})
# The `jit` whose `static_argnames=` the fixes write (pjit's spellings are not edited).
JAX_JIT = frozenset({"jax.jit"})
LAX_SCAN = "jax.lax.scan"
_LAX = "jax.lax."
# The host's random generators (NumPy's and Python's modules): each call draws once, when a
# traced function is traced.
HOST_RANDOM_PREFIXES = ("numpy.random.", "random.")
# Calls of those modules that make, seed or save a generator rather than draw from it.
HOST_RANDOM_STATE = frozenset(
    f"{module}.{name}"
    for module, names in (
        ("numpy.random", ("seed", "get_state", "set_state", "RandomState", "default_rng",
                          "Generator", "SeedSequence", "BitGenerator", "PCG64", "PCG64DXSM",
                          "MT19937", "Philox", "SFC64")),
        ("random", ("seed", "getstate", "setstate", "Random", "SystemRandom")),
    )
    for name in names
)  # fmt: skip
# Calls that hand their arguments to Python on the host as the compiled program runs.
HOST_CALLBACKS = frozenset(
    {"jax.debug.callback", "jax.debug.print", "jax.pure_callback", "jax.experimental.io_callback",
     "jax.experimental.host_callback.call", "jax.experimental.host_callback.id_tap"}
)  # fmt: skip


def lax_name(leaf: str) -> str:
    """`"psum"` -> `"jax.lax.psum"`: a call's last name read as a `jax.lax` function, for a
    text gate before names are resolved."""
    return _LAX + leaf


def call_kind(qualname: str) -> str:
    if qualname.startswith(JAX_OP_PREFIXES):
        return "static" if qualname in JAX_STATIC else "jax"
    if qualname in plugins.jax_calls():  # a library built on jax (frameworks/ plug-ins)
        return "jax"
    if qualname in pass_through():
        return "jax"
    if qualname.startswith(JAX_STATIC_PREFIXES):
        return "other"
    if qualname in JAX_PROCESS:
        return "static"
    if qualname.startswith("builtins."):
        if qualname in BUILTIN_STATIC:
            return "static"
        if qualname in BUILTIN_CONTAINERS:
            return "container"
        if qualname in ("builtins.abs", "builtins.round", "builtins.sum"):
            return "same"
        return "other"
    if qualname.startswith("numpy."):
        if qualname in NUMPY_STATIC:
            return "static"
        return "dispatch" if qualname in NUMPY_DISPATCH else "other"
    if qualname.startswith("math."):
        return "other"
    return "unknown"


# The callback whose result, unused, staged code drops (the facts say under which transforms).
PURE_CALLBACK = frozenset({"jax.pure_callback"})
# What still works on a deleted (donated) array [observed on jax 0.10.2]: its metadata, not
# its data, and the builtins (as spelled) that read no more than that.
DELETED_ARRAY_ATTRIBUTES = SHAPE_ATTRIBUTES | {"is_deleted"}
DELETED_ARRAY_CALLS = frozenset({"len", "isinstance", "type", "id"})

# `jax.experimental.host_callback`: deprecated in jax 0.4.26 (jax-ml/jax#20385), still shipped
# (re-implemented on io_callback) in 0.4.34, removed after it; the generated facts say whether
# the facts' own jax can import it.
HOST_CALLBACK_LAST_SHIPPED = (0, 4, 34)
HOST_CALLBACK = "jax.experimental.host_callback"
# `from jax.experimental import host_callback`: the package it is imported from, and its name.
HOST_CALLBACK_PACKAGE, _, HOST_CALLBACK_MODULE = HOST_CALLBACK.rpartition(".")
# What replaces each of its APIs (jax-ml/jax#20385, where it was deprecated). Stated by hand:
# the generator cannot read them from a jax that no longer has the module, and the
# replacements are advice, not something jax states about itself.
HOST_CALLBACK_REPLACEMENTS = {
    "id_tap": "`jax.experimental.io_callback` (or `jax.debug.callback` for printing)",
    "id_print": "`jax.debug.print`",
    "call": "`jax.pure_callback` (or `jax.experimental.io_callback` for side effects)",
    "barrier_wait": "`jax.effects_barrier()`",
}
