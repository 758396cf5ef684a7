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
8. **Python constants** of the modules whose other public names are functions or dtypes
   (`jax.numpy.pi`, `newaxis`, `math.inf`): values `jax.jit` takes as arguments, unlike the
   functions, dtypes, primitives and index helpers (`jnp.s_`) around them.

Array methods (`x.min(axis)`) are probed like functions, as `jax.Array.<name>`, the receiver a
concrete array. Each entry lists the parameters that can be passed by position
(`parameters`; for methods, after the receiver), so a linter can bind positional arguments.
A size parameter left out (`segment_sum` without `num_segments`) makes jax read the size from
another argument's values: `static_unless` maps that argument to the size parameter.

Usage: python scripts/gen_jax_facts.py [OUTPUT]   (default: jitlint/data/jax_facts.json)
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp
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


def pass_through() -> list[str]:
    """The top-level jax functions that, under `jax.jit`, return their argument's structure
    with the very tracers they were given."""
    found = []
    for name in PASS_THROUGH_CANDIDATES:
        fn = getattr(jax, name, None)
        if fn is None:
            continue
        seen: dict[str, bool] = {}

        def body(x: Any, fn: Callable[..., Any] = fn, seen: dict[str, bool] = seen) -> Any:
            result = fn({"a": x})
            seen["same"] = isinstance(result, dict) and result.get("a") is x
            return x

        try:
            jax.jit(body)(jnp.ones(2))
        except Exception:
            continue
        if seen.get("same"):
            found.append(f"jax.{name}")
    return found


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


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")  # deprecation notices from probing odd argument kinds
    default = Path(__file__).resolve().parent.parent / "jitlint" / "data" / "jax_facts.json"
    target = Path(argv[1]) if len(argv) > 1 else default
    facts = {
        "generator": "scripts/gen_jax_facts.py",
        "jax_version": jax.__version__,
        "static_parameters": static_parameters(),
        "collectives": collectives(),
        "axis_size_is_python_int": axis_size_is_python_int(),
        "shard_map_none_in_spec": shard_map_none_spec(),
        "pass_through": pass_through(),
        "axis_collectives": axis_collectives(),
        "axis_transforms": axis_transforms(),
        "importable_modules": removed_modules(),
        "python_constants": python_constants(),
    }
    target.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    count = len(facts["static_parameters"])
    print(f"wrote {target}: {count} functions with static parameters", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
