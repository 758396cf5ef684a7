"""What jax says about its own library functions, as shipped data.

`scripts/gen_jax_facts.py` generates `jitlint/data/jax_facts.json` from the installed jax
(introspection of jax's own `jit` wrappers, and probing under `jax.jit` on the CPU); a test
checks that the shipped file is what the script produces. Nothing here imports jax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, TypeVar

from jitlint.model.library import shipped_json
from jitlint.python.binding import Signature, bind

T = TypeVar("T")

FACTS_FILE = "jax_facts.json"


@dataclass(frozen=True)
class StaticParameters:
    """The parameters of one function that must be Python values under `jax.jit`."""

    always: frozenset[str]  # a traced value there fails (`jnp.zeros(shape)`)
    if_int: frozenset[str]  # fails when a traced int, fine as an array (`permutation(key, x)`)
    # A parameter that must be concrete when a size parameter is left out, to the size
    # parameter (`segment_sum(data, ids)`: ids -> num_segments).
    unless: tuple[tuple[str, str], ...] = ()
    positional: tuple[str, ...] = ()  # the parameters in the order positions reach them

    def bind(self, args: Sequence[tuple[str | None, T]]) -> dict[str, T] | None:
        """The parameter each argument reaches: `args` are (keyword or None, argument) in
        call order, star arguments marked as `bind` marks them. None when positions cannot
        be followed (a star argument, more positions than parameters)."""
        bound = bind(self.signature, args)
        if not bound.certain or bound.surplus:
            return None
        return {**bound.arguments, **bound.extra_keywords}

    @cached_property
    def signature(self) -> Signature:
        """The facts list only the parameters a position reaches: any keyword may name one
        of the others, so keywords are collected as a `**kwargs` would."""
        return Signature(self.positional, var_keyword="keywords")

    def concrete(self, bound: dict[str, Any]) -> list[tuple[str, str | None]]:
        """The bound parameters that must be Python values in this call, each with the size
        parameter whose absence makes it so (None for a parameter that is always static)."""
        found: list[tuple[str, str | None]] = [(n, None) for n in bound if n in self.always]
        found += [(n, size) for n, size in self.unless if n in bound and size not in bound]
        return found


@dataclass(frozen=True)
class Collective:
    """What a collective returns."""

    returns_structure: bool  # `pmean({"a": x}, axis)` is a dict of arrays
    constant_gives_python_value: bool  # `psum(1, axis)` is the axis size, a Python int


@cache
def _raw() -> dict[str, Any]:
    return shipped_json(FACTS_FILE)


def jax_version() -> str:
    """The jax version the facts were generated with."""
    return _raw()["jax_version"]


@cache
def static_parameters(qualname: str) -> StaticParameters | None:
    """The static parameters of `qualname` (`jax.numpy.zeros`), None when it has none."""
    entry = _raw()["static_parameters"].get(qualname)
    if entry is None:
        return None
    return StaticParameters(
        frozenset(entry.get("static", ())),
        frozenset(entry.get("static_if_int", ())),
        tuple(sorted(entry.get("static_unless", {}).items())),
        tuple(entry.get("parameters", ())),
    )


def method_static_parameters(method: str) -> StaticParameters | None:
    """The static parameters of the array method `method` (`x.min(axis)`), after the
    receiver."""
    return static_parameters(f"{ARRAY_METHOD_PREFIX}{method}")


ARRAY_METHOD_PREFIX = "jax.Array."


@cache
def collective(qualname: str) -> Collective | None:
    """What the collective `qualname` (`jax.lax.psum`) returns, None for other functions."""
    entry = _raw()["collectives"].get(qualname)
    if entry is None:
        return None
    return Collective(entry["returns_structure"], entry["constant_gives_python_value"])


@cache
def pass_through() -> frozenset[str]:
    """Top-level jax functions that return their argument, tracers and all
    (`jax.device_get(x)` under jit is `x`)."""
    return frozenset(_raw().get("pass_through", ()))


@cache
def tree_mapping() -> frozenset[str]:
    """Top-level jax functions of one pytree argument that return its structure with every
    leaf an array (`jax.lax.stop_gradient` of a dict is a dict)."""
    return frozenset(_raw().get("tree_mapping", ()))


@cache
def fresh_wrappers() -> frozenset[str]:
    """Transformations of one function whose every application is a new function that
    `jax.jit` traces again (`jax.jit(jax.vmap(f))` made twice from the same `f`)."""
    return frozenset(_raw().get("fresh_wrappers", ()))


@cache
def python_constants() -> frozenset[str]:
    """Qualified names of the numbers (and `newaxis`, None) among the public names of the
    modules whose other names are functions or dtypes (`jax.numpy.pi`, `math.inf`)."""
    return frozenset(_raw().get("python_constants", ()))


@cache
def array_attributes() -> frozenset[str]:
    """Every attribute `hasattr` finds on a JAX array, concrete or a tracer of jit, vmap,
    grad or a scan body: a value on which `hasattr(x, name)` holds for any other name is not
    one array."""
    return frozenset(_raw().get("array_attributes", ()))


@cache
def value_reading_methods() -> frozenset[str]:
    """Methods of an array that hand back its values as Python data (`x.item()`,
    `x.tolist()`): on a tracer they fail, there being no values yet."""
    return frozenset(_raw().get("value_reading_methods", ()))


@cache
def weak_types(kind: str) -> frozenset[str]:
    """Weak-type facts under the default config (x64 off), by `kind`: "strong_float_makers"
    (functions whose result is a strongly typed float array: `jnp.ones`, `np.zeros`),
    "weak_wrappers" (`jnp.asarray(0.0)` keeps the float's weak type), "dtyped_wrappers" (made
    strong by a float `dtype=`), "strong_if_any" (jax.numpy functions whose result is strong
    when one array operand is), "reducing_methods" (array methods that reduce a strong float
    array to a strong scalar)."""
    return frozenset(_raw().get("weak_types", {}).get(kind, ()))


@cache
def config_env() -> dict[str, str]:
    """`JAX_<NAME>` -> the kind of value `jax.config.update("jax_<name>", ...)` takes ("bool",
    "int", "float", "str", "other"), for every option `import jax` reads from the environment."""
    return dict(_raw().get("config_env", {}))


@cache
def bool_env_strings(truth: bool) -> frozenset[str]:
    """The strings (lowercase) jax reads as `truth` from a boolean `JAX_*` variable."""
    return frozenset(_raw().get("bool_env_strings", {}).get("true" if truth else "false", ()))


def axis_size_is_python_int() -> bool:
    return bool(_raw()["axis_size_is_python_int"])


def shard_map_none_spec_argument() -> dict[str, str]:
    """What an argument whose `in_specs` entry is None is inside the mapped function:
    {"called directly": ..., "under jax.jit": ...} ("python value" or "tracer")."""
    return dict(_raw()["shard_map_none_in_spec"])


@dataclass(frozen=True)
class AxisParameter:
    """Where a collective (`jax.lax.psum`, `axis_index`, ...) takes its axis name."""

    name: str
    position: int | None  # None: keyword only


@cache
def axis_collective(qualname: str) -> AxisParameter | None:
    """The axis-name parameter of `qualname`, None for functions that take none."""
    entry = _raw().get("axis_collectives", {}).get(qualname)
    if entry is None:
        return None
    return AxisParameter(entry["parameter"], entry["position"])


@dataclass(frozen=True)
class AxisTransform:
    """What one transformation does with axis names and with unused callbacks."""

    # Its parameters that name axes (`axis_name`, `mesh`, `axis_env`, ...), with their
    # positions (None: keyword only).
    parameters: tuple[tuple[str, int | None], ...]
    binds_axis_name: bool  # `axis_name=` binds the name for collectives inside
    runs_unused_pure_callback: bool | None  # None: not probed (the body never runs whole)

    @cached_property
    def signature(self) -> Signature:
        """Its parameters as far as the facts place them: the axis parameters at their
        positions, the positions between them unnamed (`#1`: no keyword reaches them), the
        rest collected as a `*args`/`**kwargs` would."""
        positions = {p: name for name, p in self.parameters if p is not None}
        named = tuple(positions.get(i, f"#{i}") for i in range(max(positions, default=-1) + 1))
        keyword_only = tuple(name for name, p in self.parameters if p is None)
        return Signature(named, (), keyword_only, "args", "keywords")


@cache
def axis_transform(qualname: str) -> AxisTransform | None:
    """The axis facts of the transformation `qualname`, None when jax's facts lack it."""
    entry = _raw().get("axis_transforms", {}).get(qualname)
    if entry is None:
        return None
    return AxisTransform(
        tuple(sorted(entry["axis_parameters"].items())),
        bool(entry.get("binds_axis_name", False)),
        entry.get("runs_unused_pure_callback"),
    )


def importable_module(name: str) -> bool | None:
    """Whether the jax the facts were generated with can import module `name` (None: not
    recorded)."""
    return _raw().get("importable_modules", {}).get(name)


# NumPy modules whose public callables the generator probes on tracers.
PROBED_NUMPY_MODULES = ("numpy", "numpy.linalg", "numpy.fft")


@cache
def numpy_on_tracer(qualname: str) -> str | None:
    """What the NumPy callable `qualname` (`numpy.sum`) does given a tracer under `jax.jit`:
    "dispatch" (it calls the array's method: a tracer), "dispatch_list" (a list of tracers),
    "static" (a Python value from the shape or dtype), "converts" (TracerArrayConversionError),
    "size" (its jax twin needs a static size there: `np.zeros(n)`), "other" (another failure
    or value), "unknown" (not probed); None when the facts do not list it."""
    entry = _raw().get("numpy_functions", {}).get(qualname)
    return None if entry is None else entry["on_tracer"]


def numpy_probed(qualname: str) -> bool:
    """Whether `qualname` names a callable of a NumPy module the generator probes (listed in
    the facts or not: a name the facts' NumPy lacks)."""
    return qualname.rpartition(".")[0] in PROBED_NUMPY_MODULES


# What a NumPy function does with a tracer when it does not convert it: it calls the array's
# method, reads the shape or dtype, or wants a size (a traced shape, not a conversion).
_NOT_CONVERTING = frozenset({"dispatch", "dispatch_list", "static", "size"})


def numpy_may_convert(qualname: str) -> bool:
    """Whether the NumPy callable `qualname`, given a tracer, may convert it to a NumPy array
    (TracerArrayConversionError): probed and not known to do something else with it (a
    callable of a probed module that the facts do not list counts)."""
    return numpy_probed(qualname) and numpy_on_tracer(qualname) not in _NOT_CONVERTING


@cache
def numpy_names(on_tracer: str) -> frozenset[str]:
    """The NumPy callables the facts give the verdict `on_tracer`."""
    functions = _raw().get("numpy_functions", {})
    return frozenset(q for q, entry in functions.items() if entry["on_tracer"] == on_tracer)


def jax_numpy_twin(qualname: str) -> bool:
    """Whether jax.numpy has a callable of the same name as the NumPy one (`numpy.sin`)."""
    entry = _raw().get("numpy_functions", {}).get(qualname)
    return bool(entry and entry["twin"])


@cache
def math_twins() -> frozenset[str]:
    """The `math` functions whose `jax.numpy` function of the same name computes the same."""
    return frozenset(_raw().get("math_twins", ()))


@dataclass(frozen=True)
class CountedSize:
    """A jax.numpy function whose result's length is counted from its argument's values
    unless `parameter` (`size=`, `length=`) bounds it."""

    parameter: str
    bounded: bool  # the first argument's element count bounds the result: `size=x.size`


@cache
def counted_size(qualname: str) -> CountedSize | None:
    """The size parameter of `qualname` (`jax.numpy.nonzero`), None when its result's length
    does not depend on values."""
    entry = _raw().get("counted_sizes", {}).get(qualname)
    return None if entry is None else CountedSize(entry["parameter"], entry["bounded"])


def at_method(operator: str) -> str | None:
    """The `.at[i]` method that applies the Python binary operator `operator` (its `operator`
    module name: "add", "truediv") to the indexed elements; None when jax has none."""
    return _raw().get("at_methods", {}).get(operator)


def builtin_twin(builtin: str) -> str | None:
    """The jax.numpy ufunc computing what the builtin of two numbers `builtin` ("max")
    computes ("maximum"); None when none does."""
    return _raw().get("builtin_twins", {}).get(builtin)
