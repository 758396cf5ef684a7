"""Guard narrowing for JAX: what proves a name is not a tracer where a test holds (or fails).

`isinstance(g, int) and g == 1` is fine under jit even when `g` is a traced parameter: no
tracer is an `int`, so wherever the right operand runs, `g` is a Python value. The Analyzer
asks `tracer_guards(...).facts(test, outcome)` for the names a test proves static on the path
where it evaluated to `outcome` (python/predicates.py reads the test, this module says which
types and attributes tell a tracer apart), and treats them as STATIC there (the right operand
of `and`/`or`, the branches of `if` and of a conditional expression, the code after an early
exit).

Only guards that prove "not a tracer" narrow: `isinstance(x, <Python or NumPy types>)`,
`type(x) is/== int`, `x is None`, `not isinstance(x, Tracer)`, and a failed
`hasattr(x, "shape")` (every tracer has the array attributes). Container types (`tuple`,
`list`, `dict`) do not prove that: a tuple may hold tracers, and a traced pytree's own truth
value is not reported anyway. They prove only that the name is not one array
(`array_guards`), as does a held `hasattr(x, "items")` for an attribute no JAX array has (the
generated `array_attributes`): a value known to be one never takes that path (equinox's
`is_empty_tuple = lambda x: isinstance(x, tuple) and x == ()` on a traced leaf).
`isinstance(x, jax.Array)` proves nothing: tracers are instances.
A call of a type-test predicate (`if not_jax_tracer(x):`, numpyro's helper whose body is
`return not isinstance(x, Tracer)`, python/predicates.py) narrows its arguments the same way,
wherever the predicate is defined; so does jax's own `jax.core.is_concrete(x)`, which is
False for the tracers of jit, vmap, pmap and the lax loops (`LIBRARY_PREDICATES`).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jitlint.model.library.jax_facts import array_attributes
from jitlint.python.binding import Signature
from jitlint.python.names import Names
from jitlint.python.predicates import (
    Guards,
    Negation,
    Predicate,
    PredicateOf,
    Resolve,
    Test,
    TypeTest,
    predicate_of,
)
from jitlint.python.walker import iter_children

# No tracer is an instance of these: under jax.jit, `isinstance(tracer, T)` was False for each
# of int, float, bool, complex, str, numbers.Number/Integral/Real, np.ndarray, np.generic and
# np.number [observed on jax 0.10.2], and True for jax.Array, jnp.ndarray and core.Tracer.
NOT_TRACER_TYPES = frozenset(
    {f"builtins.{n}" for n in ("int", "float", "bool", "complex", "str", "bytes")}
    | {f"numbers.{n}" for n in ("Number", "Complex", "Real", "Rational", "Integral")}
    | {f"numpy.{n}" for n in (
        "ndarray", "generic", "number", "integer", "signedinteger", "unsignedinteger",
        "floating", "complexfloating", "bool_",
    )}
    | {"types.NoneType"}
)  # fmt: skip
# Python containers: no JAX array is an instance of them, but a container of tracers is.
CONTAINER_TYPES = frozenset(f"builtins.{n}" for n in ("tuple", "list", "dict", "set", "frozenset"))
# Attributes every tracer has (jax.core.Tracer defines them for every abstract array), so
# `hasattr(x, "shape")` failing proves x is not one (optax's `check_shapes_equal` does this).
ARRAY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "at", "aval", "T"})
# Every tracer is an instance of these, so `not isinstance(x, Tracer)` proves x is not one.
TRACER_TYPES = frozenset({"jax.core.Tracer", "jax._src.core.Tracer"})

# True only while jit is disabled (`with jax.disable_jit():`, JAX_DISABLE_JIT=1), and then jit
# and the lax loops run their bodies eagerly, so code a test of it guards never runs staged;
# inside a jit it reads False [observed on jax 0.10.2: an assert on a jnp value under
# `if jax.config.jax_disable_jit:` in a `lax.map` body under jit runs with and without
# `jax.disable_jit()`; under vmap the body is still traced and the assert fails].
EAGER_ONLY_FLAGS = frozenset({"jax.config.jax_disable_jit"})
# `jax.config.read("jax_disable_jit")` names the same flag (jax 0.10.2 raises AttributeError
# for it instead: the guarded code is not reached either way).
CONFIG_READERS = frozenset({"jax.config.read"})


def eager_only_flag(expr: cst.CSTNode, resolve: Resolve) -> bool:
    """Whether `expr` reads a flag that is True only where jit is disabled: the attribute,
    a name bound to it (names.py follows `flag = jax.config.jax_disable_jit`), or the
    config's `read` of its name."""
    if type(expr) is cst.Call:
        args = expr.args  # type: ignore[attr-defined]
        if len(args) != 1 or type(args[0].value) is not cst.SimpleString:
            return False
        named = args[0].value.evaluated_value  # type: ignore[attr-defined]
        found = resolve(expr.func)  # type: ignore[attr-defined]
        return bool(found) and found <= CONFIG_READERS and f"jax.config.{named}" in EAGER_ONLY_FLAGS
    found = resolve(expr)
    return bool(found) and found <= EAGER_ONLY_FLAGS


# jax functions that are type tests in all but their body. `jax.core.is_concrete(x)` was
# False for the tracer of jax.jit, vmap, pmap and lax.scan/map [observed on jax 0.10.2], so
# where it held, `x` is not one: `if not jax.core.is_concrete(x): raise ...` guards a NumPy
# conversion after it (jax-fli). Under grad alone it is True for the linearize tracer, whose
# value is concrete: the model does not report a grad-only path either.
_IS_CONCRETE = Predicate(Signature(("x",)), Negation(TypeTest("x", TRACER_TYPES)))
LIBRARY_PREDICATES: dict[str, Predicate] = {
    f"{module}.is_concrete": _IS_CONCRETE for module in ("jax.core", "jax._src.core")
}


def library_predicate(qualnames: frozenset[str]) -> Predicate | None:
    """The type test a call of the jax function named `qualnames` amounts to, if any."""
    found = {LIBRARY_PREDICATES.get(name) for name in qualnames}
    return found.pop() if len(found) == 1 else None


def proves_not_tracer(types: frozenset[str], held: bool) -> bool:
    """Whether `isinstance(x, types)` evaluating to `held` proves `x` is not a tracer."""
    if held:
        return bool(types) and types <= NOT_TRACER_TYPES
    return bool(types) and types <= TRACER_TYPES


def proves_not_array(types: frozenset[str], held: bool) -> bool:
    """Whether `isinstance(x, types)` evaluating to `held` proves `x` is not one JAX array
    (it may still be a container of them)."""
    if held and types and types <= NOT_TRACER_TYPES | CONTAINER_TYPES:
        return True
    return proves_not_tracer(types, held)


def array_guards(resolve: Resolve) -> Guards:
    """Guards that read a test for the names it proves are not one JAX array: where
    `isinstance(x, tuple)` holds, or `hasattr(x, "items")` for an attribute no JAX array has
    (the generated `array_attributes`: jaxrl2's `_flatten_dict` takes a dict or an array), a
    value known to be one array is never there."""
    return Guards(resolve, None, proves_not_array, ARRAY_ATTRIBUTES, members=array_attributes())


def tracer_guards(
    resolve: Resolve,
    predicate: PredicateOf | None = None,
    opaque: Callable[[cst.Call], bool] | None = None,
) -> Guards:
    """Guards that read a test for the names it proves are not tracers (python/predicates.py
    reads the test; what proves "not a tracer" is this module's). `opaque`: the calls of
    functions the run cannot read, which may be tracer tests (a one-file run's imports)."""
    return Guards(resolve, predicate, proves_not_tracer, ARRAY_ATTRIBUTES, opaque)


def tests_for_tracers(names: Names, func: cst.FunctionDef, path: list[cst.CSTNode]) -> bool:
    """Whether `func`'s own body (not a nested scope's) asks whether a value is a tracer:
    `isinstance(x, jax.core.Tracer)`, or a call of a type-test predicate of this module whose
    test is that one (numpyro's `not_jax_tracer`). A body that asks is written to run under
    jit, whoever its callers are."""
    inside = [*path, func, func.body]
    predicates: dict[str, bool] = {}

    def tracer_predicate(name: str) -> bool:
        known = predicates.get(name)
        if known is None:
            bindings = names.lookup(name, inside)
            node = bindings[0].node if bindings and len(bindings) == 1 else None
            summary = predicate_of(names, node, [names.module]) if (
                type(node) is cst.FunctionDef and bindings[0].kind == "def"  # type: ignore[index]
            ) else None  # fmt: skip
            known = predicates[name] = summary is not None and _tests_tracer(summary.test)
        return known

    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        if kind is cst.Call and type(node.func) is cst.Name:  # type: ignore[attr-defined]
            callee = node.func.value  # type: ignore[attr-defined]
            if callee == "isinstance" and len(node.args) == 2:  # type: ignore[attr-defined]
                kinds = node.args[1].value  # type: ignore[attr-defined]
                found = names.qualified_names(kinds, inside)
                if found and found <= TRACER_TYPES:
                    return True
            elif callee != "isinstance" and tracer_predicate(callee):
                return True
        stack.extend(iter_children(node))
    return False


def _tests_tracer(test: Test) -> bool:
    if type(test) is TypeTest:
        return bool(test.types) and test.types <= TRACER_TYPES
    if type(test) is Negation:
        return _tests_tracer(test.operand)
    return _tests_tracer(test.left) or _tests_tracer(test.right)  # type: ignore[union-attr]
