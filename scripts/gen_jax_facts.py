"""Generate jitlint's JAX library facts from the installed jax.

Needs jax (the linter itself never imports it). Everything in the output is what jax says
about itself, by introspection or by probing under `jax.jit` on the CPU:

1. **Static parameters** of the public functions of `jax.numpy` (and its `linalg`/`fft`),
   `jax.lax`, `jax.nn`, `jax.random` and `jax.ops`: the parameters that must be Python values
   under `jax.jit`.
   - Functions that jax itself wraps in `jit` declare them (`static_argnames` and
     `static_argnums` of the wrapper's `_jit_info`).
   - For the others, each parameter annotated as an int, axis, shape or size is probed: the
     function is called eagerly with a small concrete argument, then under `jax.jit` with that
     argument traced. It is static when only the traced call fails with a concreteness error.
2. **Collectives** (`lax.psum`, `pmean`, ...): probed under `jax.vmap(..., axis_name=...)`,
   whether they return the structure they are given (a dict stays a dict) and whether a
   Python constant gives a Python value (`psum(1, axis)` is the axis size, an `int`).
3. **`shard_map`**: what an argument whose `in_specs` entry is `None` arrives as.
4. **Pass-through functions** (`jax.device_get`, ...): probed under `jax.jit` with a dict of
   a tracer, whether they hand back the same structure with the tracer itself in it (so a
   value stays traced through them).
5. **Axis names**: the public `jax.lax` functions with an `axis_name` parameter (the
   collectives, `axis_index`, ...) and where it sits, from their signatures; for each
   transformation the linter knows, the parameters that name axes (`axis_name`, `mesh`,
   `axis_env`, ...), and whether `axis_name=` really binds the name for a `psum` inside
   (probed: it works with the option and fails without it).
6. **Unused `pure_callback` results**: for each transformation, whether a `pure_callback`
   whose result is unused still runs under it (probed: staged code drops it).
7. **Removed modules**: whether `jax.experimental.host_callback` (and other modules users
   still import) can be imported from the installed jax.
8. **NumPy on tracers**: each public callable of `numpy`, `numpy.linalg` and `numpy.fft`, whether
   `jax.numpy` has one of the same name (`twin`), and what it does under `jax.jit` given a
   traced array (`on_tracer`): `dispatch` (it calls the array's own method and returns a
   tracer; `dispatch_list`: a list of them), `static` (it returns the same Python value as
   when called eagerly: it only reads the shape or dtype), `converts` (it fails with jax's
   TracerArrayConversionError), `size` (its jax twin takes a static size first, `np.zeros(n)`:
   a traced size fails as an integer, not an array), or `other` (it fails some other way, or
   gives a different value). The other required parameters get small concrete samples; a
   function that cannot be called so, eagerly, is left `unknown`.
9. **Counted sizes**: the public `jax.numpy` functions whose result's length is read from the
   values of a traced argument unless a size parameter (`size`, `length`, default None) is
   given: probed under `jax.jit`, they fail without it and work with it. `bounded` says
   whether the result is never longer than the first argument has elements (on a sample
   whose elements are all nonzero and distinct, other arguments disjoint from it), so that
   `size=x.size` keeps every entry.
10. **`math` twins**: the public `math` functions whose `jax.numpy` function of the same name
   gives the same values on sample inputs.
11. **`.at[]` methods**: for each binary operator of Python's `operator` module (`add`, `sub`,
    `truediv`, ...), the method of an array's `.at[i]` reference that updates the element as
    `x[i] = op(x[i], v)` would (named like a jax.numpy function where two methods do).
12. **Builtin twins**: the builtins of two floats (`max`, `min`, `pow`, ...) with a jax.numpy
    ufunc that gives the same values on sample pairs, a NaN included.
13. **Python constants** of the modules whose other public names are functions or dtypes
    (`jax.numpy.pi`, `newaxis`, `math.inf`): values `jax.jit` takes as arguments, unlike the
    functions, dtypes, primitives and index helpers (`jnp.s_`) around them.
14. **Fresh wrappers**: the transformations the linter knows (and `jax.named_call`) that,
    applied to one function, give a new function each time whose `jax.jit` traces again:
    probed by jitting two applications to the same function and counting the traces
    (jax's `/jax/core/compile/jaxpr_trace_duration` events).
15. **Value-reading methods**: the public methods of a traced array, called without arguments,
    that fail under `jax.jit` with a concreteness error and, called eagerly, hand back Python
    data read from the array's values (`x.item()`, `x.tolist()`): not a jax array, equal for
    two arrays of the same values, different for arrays of other values (so `is_deleted`,
    `devices` and buffer pointers are left out).
16. **Weak types** (`weak_types`), under the default config (x64 off): which array makers give a
    strongly typed float array (`strong_float_makers`: `jnp.ones(...)`, `jax.random.normal`,
    NumPy's arrays; integer makers are not float), which wrappers keep a Python float's weak
    type (`weak_wrappers`: `jnp.asarray(0.0)` is `~float32[]`) and which are made strong by an
    explicit float dtype (`dtyped_wrappers`), the functions whose result is strong when one
    array operand is (`strong_if_any`: given a strong array and, where they take two, a weak
    scalar) and the array methods that reduce a strong array to a strong one
    (`reducing_methods`). Each candidate is called on sample arguments.
17. **Configuration from the environment** (`config_env`): each option `jax_<name>` that
    `import jax` defines reads `JAX_<NAME>` once, then; the kind of value
    `jax.config.update` takes for it (`bool`, `int`, `float`, `str`, or `other` for options
    that also take objects), from the constructor that defined it, seen by profiling a fresh
    interpreter's `import jax`. `bool_env_strings`: the strings jax's `bool_env` reads as True
    and as False (case-insensitive; others are an error).
18. **Array attributes** (`array_attributes`): every attribute name `hasattr` finds on a JAX
    array: a concrete one, and the tracers of `jax.jit`, `jax.vmap`, `jax.grad` and a
    `lax.scan` body (the names `dir` lists for each and for its abstract value, kept where
    `hasattr` holds on at least one). A name outside them (`hasattr(x, "items")`) holding
    proves `x` is not one array.

Array methods (`x.min(axis)`) are probed like functions, as `jax.Array.<name>`, the receiver a
concrete array. Each entry lists the parameters that can be passed by position
(`parameters`; for methods, after the receiver), so a linter can bind positional arguments.
A size parameter left out (`segment_sum` without `num_segments`) makes jax read the size from
another argument's values: `static_unless` maps that argument to the size parameter.

Usage: python scripts/gen_jax_facts.py [OUTPUT]   (default: jitlint/data/jax_facts.json)
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

MODULES = (
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.nn",
    "jax.random",
    "jax.ops",
)
# Annotations of parameters worth probing: what jax's own type hints call ints, axes, shapes.
PROBED_ANNOTATION = re.compile(r"\b(int|Axis|Shape|DimSize|Sequence\[int\]|SupportsIndex)\b")
# The message of a failure caused by a traced value where jax wanted a Python one.
CONCRETENESS = re.compile(
    r"concrete|static|[Tt]racer|Traced<|hashable|compile-time constant|__index__"
)
# Each collective with the options it needs besides the value and the axis name (probed on an
# axis of size 2).
COLLECTIVES: dict[str, dict[str, Any]] = {
    "psum": {},
    "pmean": {},
    "pmax": {},
    "pmin": {},
    "all_gather": {},
    "psum_scatter": {},
    "ppermute": {"perm": [(0, 1), (1, 0)]},
    "pshuffle": {"perm": [1, 0]},
    "all_to_all": {"split_axis": 0, "concat_axis": 0},
    "pswapaxes": {"axis": 0},
    "pbroadcast": {"source": 0},
}


def public_functions(module_name: str) -> dict[str, Callable[..., Any]]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None) or dir(module)
    found = {}
    for name in sorted(names):
        if name.startswith("_"):
            continue
        obj = getattr(module, name, None)
        if callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj):
            found[name] = obj
    return found


def signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def declared_static(fn: Callable[..., Any], sig: inspect.Signature) -> list[str] | None:
    """The static parameters of a function jax wraps in `jit`, as the wrapper declares them."""
    info = getattr(fn, "_jit_info", None)
    if info is None:
        return None
    params = list(sig.parameters)
    static = set(info.static_argnames)
    static |= {params[i] for i in info.static_argnums if i < len(params)}
    return sorted(static & set(params))


def sample(param: inspect.Parameter) -> Any:
    """A small concrete argument for a parameter, chosen from its name and annotation."""
    text = str(param.annotation)
    if param.name == "key" or "KeyArray" in text:
        return jax.random.key(0)
    if "Shape" in text or param.name == "shape":
        return (2, 3)
    if param.name.endswith(("_ids", "indices")):
        return jnp.array([0, 1])  # integer ids for the leading axis of the array sample
    if param.name == "fill_value":
        return 0.0  # `lax.full` takes a scalar
    if PROBED_ANNOTATION.search(text):
        return 1
    return jnp.arange(6.0).reshape(2, 3)


def probe_static(fn: Callable[..., Any], sig: inspect.Signature) -> dict[str, str]:
    """Probe each int/axis/shape-annotated parameter: 'static', 'static if a Python int' (it
    also takes an array, which may be traced: `permutation(key, x)`), or 'traced' (both the
    eager and the traced call work)."""
    required = {}
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is param.empty:
            required[name] = sample(param)
    try:
        bound = sig.bind(**required)
        fn(*bound.args, **bound.kwargs)
    except Exception:
        return {}  # no concrete call to compare with: say nothing about this function
    verdicts = {}
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if not PROBED_ANNOTATION.search(str(param.annotation)) and param.name != "shape":
            continue
        value = required.get(name, sample(param))
        arguments = dict(required)

        def call(v: Any, name: str = name, arguments: dict[str, Any] = arguments) -> Any:
            bound = sig.bind(**{**arguments, name: v})
            return fn(*bound.args, **bound.kwargs)

        try:
            call(value)
        except Exception:
            continue  # the sample does not suit this parameter
        failure = fails_traced(call, value)
        if failure is None:
            verdicts[name] = "traced"
        elif failure == "concreteness":
            array = jnp.arange(6.0).reshape(2, 3)
            takes_arrays = "Array" in str(param.annotation) and works(call, array)
            static_if_int = takes_arrays and fails_traced(call, array) is None
            verdicts[name] = "static_if_int" if static_if_int else "static"
    return verdicts


def works(call: Callable[[Any], Any], value: Any) -> bool:
    try:
        call(value)
    except Exception:
        return False
    return True


def fails_traced(call: Callable[[Any], Any], value: Any) -> str | None:
    """None when `call` works with `value` traced; 'concreteness' when it fails for wanting a
    Python value; 'other' for any other failure."""
    try:
        jax.jit(call)(value)
    except Exception as error:  # any failure is data
        return (
            "concreteness" if CONCRETENESS.search(f"{type(error).__name__}: {error}") else "other"
        )
    return None


def probe_static_unless(
    fn: Callable[..., Any], sig: inspect.Signature, static: list[str]
) -> dict[str, str]:
    """For each static parameter that defaults to None (a size: `num_segments`,
    `total_repeat_length`), the required arguments that must be concrete when it is left out
    (jax reads the size from their values) but may be traced when it is given."""
    required = {}
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is param.empty:
            required[name] = sample(param)
    found: dict[str, str] = {}
    for size_name in static:
        size = sig.parameters[size_name]
        if size.default is not None or size_name in required:
            continue
        for name in required:
            arguments = dict(required)

            def call(v: Any, name: str = name, arguments: dict[str, Any] = arguments) -> Any:
                bound = sig.bind(**{**arguments, name: v})
                return fn(*bound.args, **bound.kwargs)

            def sized(
                v: Any, name: str = name, size: str = size_name, arguments: dict = arguments
            ) -> Any:
                bound = sig.bind(**{**arguments, name: v, size: 4})
                return fn(*bound.args, **bound.kwargs)

            value = required[name]
            if not works(call, value) or not works(sized, value):
                continue
            if fails_traced(call, value) == "concreteness" and fails_traced(sized, value) is None:
                found[name] = size_name
    return found


def positional_parameters(sig: inspect.Signature, method: bool) -> list[str]:
    """The parameters an argument can reach by position, in order (after the receiver)."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [n for n, p in sig.parameters.items() if p.kind in kinds]
    return names[1:] if method else names


def array_methods() -> dict[str, Callable[..., Any]]:
    """The public methods of jax's array type, as functions of the receiver."""
    array_type = type(jnp.zeros(()))
    found = {}
    for name in sorted(dir(array_type)):
        if name.startswith("_"):
            continue
        obj = getattr(array_type, name, None)
        if callable(obj) and not inspect.isclass(obj) and signature(obj) is not None:
            found[name] = obj
    return found


def entry_for(fn: Callable[..., Any], sig: inspect.Signature, method: bool) -> dict[str, Any]:
    """The facts about one function (or method): {} when it has no static parameter."""
    declared = declared_static(fn, sig)
    entry: dict[str, Any]
    if declared is not None:
        if not declared:
            return {}
        entry = {"static": declared, "how": "jit"}
    else:
        verdicts = probe_static(fn, sig)
        entry = {"how": "probe"}
        for verdict in ("static", "static_if_int"):
            names = sorted(n for n, v in verdicts.items() if v == verdict)
            if names:
                entry[verdict] = names
        if len(entry) == 1:
            return {}
    unless = probe_static_unless(fn, sig, entry.get("static", []))
    if unless:
        entry["static_unless"] = unless
    entry["parameters"] = positional_parameters(sig, method)
    return entry


def static_parameters() -> dict[str, dict[str, Any]]:
    facts: dict[str, dict[str, Any]] = {}
    candidates = [
        (f"{module_name}.{name}", fn, False)
        for module_name in MODULES
        for name, fn in public_functions(module_name).items()
    ]
    candidates += [(f"jax.Array.{name}", fn, True) for name, fn in array_methods().items()]
    for qualname, fn, method in candidates:
        sig = signature(fn)
        if sig is None:
            continue
        entry = entry_for(fn, sig, method)
        if entry:
            facts[qualname] = entry
    return facts


def collectives() -> dict[str, dict[str, bool]]:
    out: dict[str, dict[str, bool]] = {}
    x = jnp.ones((2, 2))
    for name, options in COLLECTIVES.items():
        fn = getattr(lax, name, None)
        if fn is None:
            continue
        seen: dict[str, bool] = {}

        def body(
            row: Any,
            fn: Callable[..., Any] = fn,
            seen: dict[str, bool] = seen,
            options: dict[str, Any] = options,
        ) -> Any:
            result = fn({"a": row, "b": row}, "i", **options)
            seen["returns_structure"] = isinstance(result, dict) and set(result) == {"a", "b"}
            try:
                constant = fn(1, "i", **options)
                seen["constant_gives_python_value"] = isinstance(constant, int | float)
            except Exception:
                seen["constant_gives_python_value"] = False
            return row

        try:
            jax.vmap(body, axis_name="i")(x)
        except Exception:
            continue
        out[f"jax.lax.{name}"] = seen
    return out


def axis_size_is_python_int() -> bool:
    seen = {}

    def body(row: Any) -> Any:
        seen["size"] = lax.axis_size("i")
        return row

    jax.vmap(body, axis_name="i")(jnp.ones((3, 2)))
    return type(seen["size"]) is int


def shard_map_none_spec() -> dict[str, str]:
    """What an argument with a `None` in_specs entry is inside the shard_map'd function,
    called directly and under an outer `jax.jit`."""
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(jax.devices()[:1], ("x",))
    seen: dict[str, str] = {}

    def body(a: Any, config: Any) -> Any:
        seen["kind"] = "tracer" if isinstance(config, jax.core.Tracer) else "python value"
        return a

    mapped = jax.shard_map(body, mesh=mesh, in_specs=(P("x"), None), out_specs=P("x"))
    mapped(jnp.ones(4), 3)
    direct = seen["kind"]
    jax.jit(mapped)(jnp.ones(4), 3)
    return {"called directly": direct, "under jax.jit": seen["kind"]}


PASS_THROUGH_CANDIDATES = ("device_get", "block_until_ready")


def _holds_under_jit(
    names: tuple[str, ...], argument: Callable[[Any], Any], check: Callable[[Any, Any], bool]
) -> list[str]:
    """The jax functions among `names` (dotted below `jax`) that, called under `jax.jit` on
    `argument(x)` for a traced `x`, give a result for which `check(result, x)` holds."""
    found = []
    for name in names:
        fn: Any = jax
        for part in name.split("."):
            fn = getattr(fn, part, None)
        if fn is None:
            continue
        seen: dict[str, bool] = {}

        def body(x: Any, fn: Callable[..., Any] = fn, seen: dict[str, bool] = seen) -> Any:
            seen["held"] = check(fn(argument(x)), x)
            return x

        try:
            jax.jit(body)(jnp.ones(2))
        except Exception:
            continue
        if seen.get("held"):
            found.append(f"jax.{name}")
    return found


def pass_through() -> list[str]:
    """The top-level jax functions that, under `jax.jit`, return their argument's structure
    with the very tracers they were given."""
    return _holds_under_jit(
        PASS_THROUGH_CANDIDATES,
        lambda x: {"a": x},
        lambda result, x: isinstance(result, dict) and result.get("a") is x,
    )


TREE_MAPPING_CANDIDATES = ("lax.stop_gradient", "device_put")


def _same_tree_of_arrays(result: Any, _x: Any) -> bool:
    return (
        isinstance(result, dict)
        and set(result) == {"a", "b"}
        and isinstance(result["b"], list)
        and all(hasattr(leaf, "shape") for leaf in (result["a"], *result["b"]))
    )


def tree_mapping() -> list[str]:
    """The jax functions of one pytree argument that, under `jax.jit`, return its structure
    with every leaf an array (`lax.stop_gradient` of a dict is a dict, not an array)."""
    return _holds_under_jit(
        TREE_MAPPING_CANDIDATES, lambda x: {"a": x, "b": [x, 1.0]}, _same_tree_of_arrays
    )


# Parameters of a transformation that name axes: `axis_name` binds one for collectives inside;
# the others bind names the linter cannot read (a mesh's axes, an axis environment).
AXIS_PARAMETERS = ("axis_name", "axis_names", "spmd_axis_name", "axis_env", "mesh")
# The transformations whose axis parameters and callback behaviour are recorded, with a way to
# run a body of one array argument under each (None: applied, never run as a whole).
TRANSFORMATIONS: dict[str, Callable[[Callable[[Any], Any], Any], Any] | None] = {
    "jax.jit": lambda body, x: jax.jit(body)(x),
    "jax.pmap": lambda body, x: jax.pmap(body)(x[None]),
    "jax.vmap": lambda body, x: jax.vmap(body)(x[None]),
    "jax.checkpoint": lambda body, x: jax.checkpoint(body)(x),
    "jax.remat": lambda body, x: jax.remat(body)(x),
    "jax.grad": None,
    "jax.value_and_grad": None,
    "jax.jacfwd": None,
    "jax.jacrev": None,
    "jax.hessian": None,
    "jax.jvp": None,
    "jax.vjp": None,
    "jax.linearize": None,
    "jax.eval_shape": None,
    "jax.make_jaxpr": None,
    "jax.shard_map": None,
    "jax.lax.scan": lambda body, x: lax.scan(lambda c, row: (c, body(row)), 0.0, x[None]),
    "jax.lax.map": lambda body, x: lax.map(body, x[None]),
    "jax.lax.fori_loop": lambda body, x: lax.fori_loop(0, 1, lambda i, v: body(v), x),
    "jax.lax.while_loop": lambda body, x: lax.while_loop(lambda v: False, body, x),
    "jax.lax.cond": lambda body, x: lax.cond(True, body, lambda v: v, x),
    "jax.lax.switch": lambda body, x: lax.switch(0, [body, lambda v: v], x),
    "jax.lax.associative_scan": None,
}
# Modules users still import that the installed jax may no longer have.
REMOVED_CANDIDATES = ("jax.experimental.host_callback", "jax.experimental.maps")


def axis_collectives() -> dict[str, dict[str, Any]]:
    """The public `jax.lax` functions with an `axis_name` parameter, with its position (None
    when it can only be passed by keyword)."""
    found: dict[str, dict[str, Any]] = {}
    for name, fn in public_functions("jax.lax").items():
        sig = signature(fn)
        if sig is None or "axis_name" not in sig.parameters:
            continue
        positional = positional_parameters(sig, method=False)
        position = positional.index("axis_name") if "axis_name" in positional else None
        found[f"jax.lax.{name}"] = {"parameter": "axis_name", "position": position}
    return found


def _resolve(qualname: str) -> Any:
    module_name, _, name = qualname.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), name, None)
    except ImportError:
        return None


def binds_axis_name(transform: Any) -> bool:
    """Whether `transform(f, axis_name="i")` binds "i" for a `psum` in `f`, and only then."""
    x = jnp.ones((1, 2))

    def body(row: Any) -> Any:
        return lax.psum(row, "i")

    try:
        transform(body, axis_name="i")(x)
    except Exception:
        return False
    try:
        transform(body)(x)
    except NameError:
        return True
    except Exception:
        return False
    return False


def runs_unused_pure_callback(run: Callable[[Callable[[Any], Any], Any], Any]) -> bool:
    """Whether a `pure_callback` whose result is unused runs under the transformation."""
    calls: list[int] = []

    def callback(value: Any) -> Any:
        calls.append(1)
        return value

    def body(v: Any) -> Any:
        jax.pure_callback(callback, jax.ShapeDtypeStruct(v.shape, v.dtype), v,
                          vmap_method="sequential")  # fmt: skip
        return v + 1

    jax.block_until_ready(run(body, jnp.ones(2)))
    jax.effects_barrier()
    return bool(calls)


def axis_transforms() -> dict[str, dict[str, Any]]:
    """Per transformation: its axis-naming parameters (name -> position, None for keyword
    only), whether `axis_name=` binds a name for collectives, and whether an unused
    `pure_callback` still runs under it."""
    found: dict[str, dict[str, Any]] = {}
    for qualname, run in TRANSFORMATIONS.items():
        fn = _resolve(qualname)
        sig = signature(fn) if fn is not None else None
        if sig is None:
            continue
        positional = positional_parameters(sig, method=False)
        entry: dict[str, Any] = {
            "axis_parameters": {
                name: positional.index(name) if name in positional else None
                for name in AXIS_PARAMETERS
                if name in sig.parameters
            }
        }
        if "axis_name" in sig.parameters:
            entry["binds_axis_name"] = binds_axis_name(fn)
        if run is not None:
            entry["runs_unused_pure_callback"] = runs_unused_pure_callback(run)
        found[qualname] = entry
    return found


# Transformations of one function beyond TRANSFORMATIONS that users apply inside loops.
WRAPPER_CANDIDATES = ("jax.named_call",)


def fresh_wrappers() -> list[str]:
    """The transformations `t` for which `jax.jit(t(f))(x)`, made twice from the same `f`,
    traces twice: each application is a new function, so jit's cache misses. Those that
    cannot be applied to `f` alone and called on an array are left out."""
    traces: list[str] = []
    trace_event = "/jax/core/compile/jaxpr_trace_duration"
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kwargs: traces.append(event) if event == trace_event else None
    )
    x = jnp.ones((1, 2))

    def body(v: Any) -> Any:
        return (v * v).sum()

    found = []
    for qualname in sorted({*TRANSFORMATIONS, *WRAPPER_CANDIDATES}):
        transform = _resolve(qualname)
        if transform is None:
            continue
        traces.clear()
        try:
            for _ in range(2):
                jax.block_until_ready(jax.jit(transform(body))(x))
        except Exception:
            continue
        if len(traces) >= 2:
            found.append(qualname)
    return found


def removed_modules() -> dict[str, bool]:
    """Each candidate module: whether the installed jax can import it."""
    out = {}
    for name in REMOVED_CANDIDATES:
        try:
            importlib.import_module(name)
        except ImportError:
            out[name] = False
        else:
            out[name] = True
    return out


NUMPY_MODULES = ("numpy", "numpy.linalg", "numpy.fft")
# The traced argument is tried in these shapes, in order, until the eager call works: square
# for linalg, one axis for `searchsorted`, three for `dsplit`.
NUMPY_SAMPLES = (
    ((2.0, 1.0), (1.0, 3.0)),
    (1.0, 2.0, 3.0),
    (((1.0, 2.0), (3.0, 4.0)), ((5.0, 6.0), (7.0, 8.0))),
)
# Samples for the other required parameters, by name (anything else gets the array itself).
NUMPY_PARAMETER_SAMPLES: dict[str, Any] = {
    **dict.fromkeys(("axis", "axis1", "source", "start"), 0),
    **dict.fromkeys(("axis2", "destination"), 1),
    **dict.fromkeys(("shape", "newshape"), (-1,)),
    **dict.fromkeys(("repeats", "indices_or_sections", "sections", "n", "k", "N", "reps"), 2),
    **dict.fromkeys(("to", "arg2", "type2", "dtype"), "float32"),
    "axes": (1, 0),
}


def numpy_callables(module_name: str) -> dict[str, Callable[..., Any]]:
    """The public callables of a NumPy module, classes (scalar types, `dtype`) included."""
    module = importlib.import_module(module_name)
    found = {}
    for name in sorted(getattr(module, "__all__", None) or dir(module)):
        obj = getattr(module, name, None)
        if name.startswith("_") or not callable(obj) or inspect.ismodule(obj):
            continue
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue
        found[name] = obj
    return found


def numpy_arguments(fn: Callable[..., Any], first: Any) -> list[Any] | None:
    """`first` and samples for the other required positional parameters, None when a
    keyword-only parameter is required or the function takes no argument."""
    if isinstance(fn, np.ufunc):
        return [first] * fn.nin
    sig = signature(fn)
    if sig is None:
        return [first] if inspect.isclass(fn) else None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(sig.parameters.values())
    if any(p.kind == p.KEYWORD_ONLY and p.default is p.empty for p in params):
        return None
    required = [p for p in params if p.kind in kinds and p.default is p.empty]
    if not required:  # `np.result_type(*arrays)`, `np.float32(value=0)`; not `np.test()`
        takes_many = any(p.kind == p.VAR_POSITIONAL for p in params)
        converts = inspect.isclass(fn) and bool(params) and params[0].kind in kinds
        return [first] if takes_many or converts else None
    return [first] + [NUMPY_PARAMETER_SAMPLES.get(p.name, first) for p in required[1:]]


def _is_tracer(value: Any) -> bool:
    return isinstance(value, jax.core.Tracer)


def _tracer_result(value: Any) -> str | None:
    if _is_tracer(value):
        return "dispatch"
    if isinstance(value, list | tuple) and value and all(_is_tracer(v) for v in value):
        return "dispatch_list"
    return None


def _same_value(a: Any, b: Any) -> bool:
    """Whether two Python values are equal (or print the same: `np.iinfo` has no `==`)."""
    try:
        return type(a) is type(b) and (bool(a == b) or repr(a) == repr(b))
    except Exception:
        return False


def on_tracer(fn: Callable[..., Any], size_first: bool) -> str:
    """What `fn` does under `jax.jit` with a traced first argument (see the module doc)."""
    if size_first:
        samples = [(2, lambda x: x)]
    else:
        arrays = [np.asarray(s, np.float32) for s in NUMPY_SAMPLES]
        # A function of dtypes (`np.issubdtype`) gets a traced array's dtype.
        samples = [(a, lambda x: x) for a in arrays] + [
            (np.asarray(0, dtype), lambda x: x.dtype) for dtype in ("float32", "int32")
        ]
    for first, given in samples:
        args = numpy_arguments(fn, given(first))
        if args is None:
            return "unknown"
        try:
            eager = fn(*args)
        except Exception:
            continue
        seen: dict[str, Any] = {}

        def body(x: Any, given: Any = given, args: list = args, seen: dict = seen) -> Any:
            seen["result"] = fn(given(x), *args[1:])
            return x

        try:
            jax.jit(body)(first)
        except jax.errors.TracerArrayConversionError:
            return "size" if size_first else "converts"
        except Exception:
            return "size" if size_first else "other"
        result = seen["result"]
        return _tracer_result(result) or ("static" if _same_value(result, eager) else "other")
    return "unknown"


def numpy_functions(static: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per public NumPy callable: whether jax.numpy has a twin, and what it does on a tracer."""
    found: dict[str, dict[str, Any]] = {}
    for module_name in NUMPY_MODULES:
        twins = importlib.import_module(module_name.replace("numpy", "jax.numpy", 1))
        for name, fn in numpy_callables(module_name).items():
            twin = f"{module_name.replace('numpy', 'jax.numpy', 1)}.{name}"
            twin_static = static.get(twin, {})
            first = (twin_static.get("parameters") or [None])[0]
            size_first = first is not None and first in twin_static.get("static", ())
            with contextlib.redirect_stdout(io.StringIO()):  # `np.info` prints
                verdict = on_tracer(fn, size_first)
            found[f"{module_name}.{name}"] = {
                "on_tracer": verdict,
                "twin": callable(getattr(twins, name, None)),
            }
    return found


SIZE_PARAMETERS = ("size", "length")
COUNTED_SAMPLE = tuple(float(v) for v in range(1, 7))  # all nonzero, all distinct


def _leading_length(result: Any) -> int:
    first = result[0] if isinstance(result, tuple) else result  # `nonzero`, `unique_counts`
    return int(np.shape(first)[0])


def counted_size(fn: Callable[..., Any], sig: inspect.Signature) -> dict[str, Any] | None:
    """The size parameter of `fn` when its result's length is counted from a traced first
    argument unless the parameter is given; None otherwise."""
    size = next((p for p in SIZE_PARAMETERS if p in sig.parameters), None)
    if size is None or sig.parameters[size].default is not None:
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(sig.parameters.values())
    if any(p.kind == p.KEYWORD_ONLY and p.default is p.empty for p in params):
        return None
    required = [p for p in params if p.kind in kinds and p.default is p.empty]
    if not required:
        return None
    for dtype in ("float32", "int32"):  # `bincount` counts ints
        x = jnp.asarray(COUNTED_SAMPLE, dtype)
        others = [x + 100] * (len(required) - 1)  # disjoint from x: `union1d` is not bounded

        def call(v: Any, others: list[Any] = others, **options: Any) -> Any:
            return fn(v, *others, **options)

        try:
            eager = call(x)
        except Exception:
            continue
        break
    else:
        return None
    if fails_traced(call, x) != "concreteness":
        return None
    if fails_traced(lambda v: call(v, **{size: int(x.size)}), x) is not None:
        return None
    return {"parameter": size, "bounded": _leading_length(eager) <= x.size}


def counted_sizes() -> dict[str, dict[str, Any]]:
    """Per public jax.numpy function whose result is counted from its values: its size
    parameter and whether the first argument's element count bounds the result."""
    found: dict[str, dict[str, Any]] = {}
    for name, fn in public_functions("jax.numpy").items():
        sig = signature(fn)
        entry = counted_size(fn, sig) if sig is not None else None
        if entry is not None:
            found[f"jax.numpy.{name}"] = entry
    return found


MATH_SAMPLES = (0.5, 1.5, 2.5)


def math_inputs(fn: Callable[..., Any], arity: int) -> tuple[float, ...] | None:
    """The first sample inputs of `arity` floats that `fn` accepts, None when none do."""
    for start in MATH_SAMPLES:
        inputs = (start, start + 0.25)[:arity]
        try:
            fn(*inputs)
        except Exception:
            continue
        return inputs
    return None


def math_twins() -> list[str]:
    """The public `math` functions whose `jax.numpy` function of the same name gives the same
    value on the first sample inputs (one float, else two) that `math` accepts."""
    import math

    found = []
    for name in sorted(dir(math)):
        fn, twin = getattr(math, name), getattr(jnp, name, None)
        if name.startswith("_") or not callable(fn) or not callable(twin):
            continue
        for arity in (1, 2):
            inputs = math_inputs(fn, arity)
            if inputs is None:
                continue
            expected = fn(*inputs)
            try:
                got = float(twin(*(jnp.float32(v) for v in inputs)))
            except Exception:
                continue
            if isinstance(expected, int | float) and bool(np.isclose(got, expected)):
                found.append(name)
                break
    return found


def at_methods() -> dict[str, str]:
    """Python binary operator (by its `operator` module name) -> the `.at[]` method that
    applies it to the indexed elements."""
    import operator

    x, values = jnp.asarray([1.5, 2.5, 3.5]), (0.75, 3.0)  # `2.5 % 2.0 == 2.5 - 2.0`
    ref = x.at[1]
    methods = sorted(
        m for m in dir(ref) if not m.startswith("_") and m not in ("get", "set", "apply")
    )
    found: dict[str, str] = {}
    for name in sorted(operator.__all__):
        op = getattr(operator, name)
        if name.startswith(("i", "_")) or not callable(op):
            continue  # the in-place forms (`iadd`) and helpers
        try:
            expected = [x.at[1].set(op(x[1], v)) for v in values]
        except Exception:
            continue
        matches = []
        for method in methods:
            update = getattr(ref, method)
            try:
                same = callable(update) and all(
                    bool(jnp.array_equal(update(v), e))
                    for v, e in zip(values, expected, strict=True)
                )
            except Exception:
                continue
            if same:
                matches.append(method)
        # `mul` and `multiply` both do: prefer the name jax.numpy also has.
        matches.sort(key=lambda m: (not callable(getattr(jnp, m, None)), m))
        if matches:
            found[name] = matches[0]
    return found


TWIN_PAIRS = ((0.5, 1.5), (1.5, 0.5), (float("nan"), 1.0), (2.0, 3.0))


def builtin_twins() -> dict[str, str]:
    """Builtins of two floats -> the jax.numpy ufunc of two inputs giving the same values."""
    import builtins

    ufuncs = sorted(
        n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc) and getattr(jnp, n).nin == 2
    )
    found: dict[str, str] = {}
    for name in sorted(dir(builtins)):
        fn = getattr(builtins, name)
        if name.startswith("_") or inspect.isclass(fn) or not callable(fn):
            continue
        try:  # `print` and `input` take two floats too: keep the terminal out of it
            with contextlib.redirect_stdout(io.StringIO()):
                expected = [float(fn(a, b)) for a, b in TWIN_PAIRS]
        except Exception:
            continue
        for twin in ufuncs:
            try:
                got = [
                    float(getattr(jnp, twin)(np.float32(a), np.float32(b))) for a, b in TWIN_PAIRS
                ]
            except Exception:
                continue  # integer-only ufuncs (`bitwise_and`)
            if np.allclose(got, expected, equal_nan=True):
                found[name] = twin
                break
    return found


# Modules whose public callables are functions or dtypes, never arrays (JIT111).
FUNCTION_MODULES = ("jax.numpy", "jax.nn", "jax.lax", "jax.scipy", "math", "operator")


def python_constants() -> list[str]:
    """The public names of FUNCTION_MODULES bound to a number or None (`jax.numpy.pi`,
    `jax.numpy.newaxis`): Python values, which jit takes as arguments."""
    found = []
    for module_name in FUNCTION_MODULES:
        module = importlib.import_module(module_name)
        names = set(getattr(module, "__all__", None) or dir(module)) & set(dir(module))
        for name in sorted(names):
            value = getattr(module, name)
            if not name.startswith("_") and isinstance(value, (int, float, complex, type(None))):
                found.append(f"{module_name}.{name}")
    return found


def _holds_array(value: Any) -> bool:
    if isinstance(value, jax.Array):
        return True
    return isinstance(value, (tuple, list)) and any(_holds_array(v) for v in value)


def value_reading_methods() -> list[str]:
    """The public zero-argument methods of a tracer that need its values as Python data."""
    found = []
    for name in sorted(n for n in dir(jax.core.Tracer) if not n.startswith("_")):
        attr = getattr(jax.core.Tracer, name, None)
        if isinstance(attr, property) or not callable(attr):
            continue
        failure: list[BaseException] = []

        def body(v: Any, name: str = name, failure: list[BaseException] = failure) -> Any:
            try:
                getattr(v, name)()
            except Exception as error:
                failure.append(error)
            return v

        # A fresh one-element array each time: some methods delete theirs, `item` wants one.
        jax.jit(body)(jnp.arange(1.0, 2.0))
        if not failure or not isinstance(failure[0], jax.errors.ConcretizationTypeError):
            continue
        try:
            first = getattr(jnp.arange(1.0, 2.0), name)()
            same = getattr(jnp.arange(1.0, 2.0), name)()
            other = getattr(jnp.arange(4.0, 5.0), name)()
        except Exception:
            continue
        if not _holds_array(first) and first == same and first != other:
            found.append(name)
    return found


def _attributes(value: Any) -> set[str]:
    """The names `dir` lists for `value` and its abstract value that `hasattr` finds on it
    (a name whose lookup raises something else counts as found: it is there)."""
    names = set(dir(value)) | set(dir(getattr(value, "aval", None)))
    found = set()
    for name in names:
        try:
            getattr(value, name)
        except AttributeError:
            continue
        except Exception:
            pass
        found.add(name)
    return found


def array_attributes() -> list[str]:
    """The attribute names `hasattr` finds on a concrete array or on a tracer of jit, vmap,
    grad or a scan body, read while the trace runs."""
    found = _attributes(jnp.arange(2.0))

    def keep(v: Any) -> Any:
        found.update(_attributes(v))
        return v.sum()

    jax.jit(keep)(jnp.arange(2.0))
    jax.vmap(keep)(jnp.arange(4.0).reshape(2, 2))
    jax.grad(keep)(jnp.arange(2.0))
    lax.scan(lambda c, v: (c, keep(v)), 0.0, jnp.arange(4.0).reshape(2, 2))
    return sorted(found)


# Candidates for the weak-type facts, each with a sample call (the random functions get a key).
MAKER_CALLS: dict[str, Callable[[Any], Any]] = {
    **{f"jax.numpy.{n}": (lambda f: f((2,))) for n in ("ones", "zeros", "empty")},
    "jax.numpy.arange": lambda f: f(2),
    "jax.numpy.eye": lambda f: f(2),
    "jax.numpy.identity": lambda f: f(2),
    "jax.numpy.linspace": lambda f: f(0.0, 1.0, 3),
    **{f"jax.random.{n}": (lambda f: f(jax.random.key(0), (2,))) for n in ("normal", "uniform")},
    "jax.random.randint": lambda f: f(jax.random.key(0), (2,), 0, 3),
    "jax.random.truncated_normal": lambda f: f(jax.random.key(0), -1.0, 1.0, (2,)),
    **{f"numpy.{n}": (lambda f: f(2)) for n in ("ones", "zeros", "empty", "eye", "arange")},
    "numpy.linspace": lambda f: f(0.0, 1.0, 3),
    **{f"numpy.random.{n}": (lambda f: f(2)) for n in ("rand", "randn")},
    **{f"numpy.random.{n}": (lambda f: f(size=2)) for n in ("normal", "uniform")},
}  # fmt: skip
WRAPPERS = ("jax.numpy.asarray", "jax.numpy.array", "numpy.asarray", "numpy.array")
OPERATIONS = (
    "sum", "mean", "max", "min", "prod", "abs", "exp", "log", "sqrt", "tanh", "square",
    "dot", "matmul", "minimum", "maximum", "where", "clip",
)  # fmt: skip
METHODS = ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "ravel")


def _weak(value: Any) -> bool:
    """Whether jax sees `value` (an array of either library) as weakly typed."""
    return bool(jnp.asarray(value).weak_type)


def _strong_float(value: Any) -> bool:
    array = jnp.asarray(value)
    return not array.weak_type and jnp.issubdtype(array.dtype, jnp.floating)


def weak_types() -> dict[str, list[str]]:
    """The weak-type facts (section 16)."""
    strong = jnp.ones((2,))
    weak = jnp.asarray(0.5)
    assert _weak(weak) and not _weak(strong)
    makers = [name for name, call in MAKER_CALLS.items() if _strong_float(call(_resolve(name)))]
    weak_wrappers = [name for name in WRAPPERS if _weak(_resolve(name)(0.5))]
    dtyped = [name for name in WRAPPERS if _strong_float(_resolve(name)(0.5, dtype=np.float32))]
    operations = []
    for leaf in OPERATIONS:
        fn = getattr(jnp, leaf)
        sample: tuple[Any, ...] = (strong,)
        if leaf in ("dot", "matmul"):
            sample = (strong, jnp.broadcast_to(weak, strong.shape))  # a weak vector
        elif leaf in ("minimum", "maximum"):
            sample = (strong, weak)
        elif leaf == "where":
            sample = (strong > 0, strong, weak)
        elif leaf == "clip":
            sample = (strong, weak, weak)
        if not _weak(fn(*sample)):
            operations.append(f"jax.numpy.{leaf}")
    methods = [
        m for m in METHODS if _strong_float(getattr(strong, m)()) and getattr(strong, m)().ndim == 0
    ]
    return {
        "strong_float_makers": sorted(makers),
        "weak_wrappers": weak_wrappers,
        "dtyped_wrappers": dtyped,
        "strong_if_any": operations,
        "reducing_methods": methods,
    }


# The kind of value each of jax's option constructors (jax/_src/config.py) takes.
CONSTRUCTOR_KINDS = {
    **{f"bool_{k}": "bool" for k in ("state", "flag")},
    **{f"int_{k}": "int" for k in ("state", "flag")},
    **{f"float_{k}": "float" for k in ("state", "flag")},
    **{n: "str" for n in (
        "string_state", "string_flag", "optional_string_state", "enum_state", "enum_flag",
        "optional_enum_state", "enum_class_state",
    )},
    "string_or_object_state": "other",
}  # fmt: skip
# Run in a fresh interpreter: which constructor defines each option during `import jax`.
_PROFILE_IMPORT = """
import json, sys
found = {}
def profile(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_filename.endswith("_src/config.py"):
        name = frame.f_locals.get("name")
        if code.co_name.endswith(("_state", "_flag")) and isinstance(name, str):
            found.setdefault(name, code.co_name)
sys.setprofile(profile)
import jax
sys.setprofile(None)
print(json.dumps(found))
"""
BOOL_CANDIDATES = (
    "y", "yes", "t", "true", "on", "1", "n", "no", "f", "false", "off", "0", "enable",
    "disable", "enabled", "none", "",
)  # fmt: skip


def config_env() -> dict[str, str]:
    """`JAX_<NAME>` -> the kind of value `jax.config.update("jax_<name>", ...)` takes."""
    done = subprocess.run(
        [sys.executable, "-c", _PROFILE_IMPORT], capture_output=True, text=True, check=True
    )
    constructors = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        name.upper(): CONSTRUCTOR_KINDS.get(constructor, "other")
        for name, constructor in sorted(constructors.items())
        if name.startswith("jax_")
    }


def bool_env_strings() -> dict[str, list[str]]:
    """The candidate strings jax's `bool_env` reads as True, and as False."""
    from jax._src.config import bool_env

    out: dict[str, list[str]] = {"true": [], "false": []}
    variable = "JITLINT_PROBE_BOOL"
    for text in BOOL_CANDIDATES:
        os.environ[variable] = text
        try:
            out["true" if bool_env(variable, False) else "false"].append(text)
        except ValueError:
            pass
        finally:
            del os.environ[variable]
    return out


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")  # deprecation notices from probing odd argument kinds
    default = Path(__file__).resolve().parent.parent / "jitlint" / "data" / "jax_facts.json"
    target = Path(argv[1]) if len(argv) > 1 else default
    static = static_parameters()
    facts = {
        "generator": "scripts/gen_jax_facts.py",
        "jax_version": jax.__version__,
        "numpy_version": np.__version__,
        "static_parameters": static,
        "collectives": collectives(),
        "axis_size_is_python_int": axis_size_is_python_int(),
        "shard_map_none_in_spec": shard_map_none_spec(),
        "pass_through": pass_through(),
        "tree_mapping": tree_mapping(),
        "axis_collectives": axis_collectives(),
        "axis_transforms": axis_transforms(),
        "importable_modules": removed_modules(),
        "numpy_functions": numpy_functions(static),
        "counted_sizes": counted_sizes(),
        "math_twins": math_twins(),
        "at_methods": at_methods(),
        "builtin_twins": builtin_twins(),
        "python_constants": python_constants(),
        "fresh_wrappers": fresh_wrappers(),
        "value_reading_methods": value_reading_methods(),
        "weak_types": weak_types(),
        "config_env": config_env(),
        "bool_env_strings": bool_env_strings(),
        "array_attributes": array_attributes(),
    }
    target.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    count = len(facts["static_parameters"])
    print(f"wrote {target}: {count} functions with static parameters", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
