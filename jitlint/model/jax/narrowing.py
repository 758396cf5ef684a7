"""Guard narrowing: which names a test proves are not tracers where the test holds (or fails).

`isinstance(g, int) and g == 1` is fine under jit even when `g` is a traced parameter: no
tracer is an `int`, so wherever the right operand runs, `g` is a Python value. The Analyzer
asks `Guards.facts(test, outcome)` for the names a test proves static on the path where it
evaluated to `outcome`, and treats them as STATIC there (the right operand of `and`/`or`, the
branches of `if` and of a conditional expression, the code after an early exit).

Only guards that prove "not a tracer" narrow: `isinstance(x, <Python or NumPy types>)`,
`type(x) is/== int`, `x is None`, `not isinstance(x, Tracer)`, and a failed
`hasattr(x, "shape")` (every tracer has the array attributes). Container types (`tuple`,
`list`, `dict`) deliberately do not: a tuple may hold tracers, and a traced pytree's own truth
value is not reported anyway. `isinstance(x, jax.Array)` proves nothing: tracers are instances.
A call of a type-test predicate (`if not_jax_tracer(x):`, numpyro's helper whose body is
`return not isinstance(x, Tracer)`, python/predicates.py) narrows its arguments the same way,
wherever the predicate is defined.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jitlint.python.names import Names
from jitlint.python.predicates import (
    Negation,
    Predicate,
    Test,
    TypeTest,
    predicate_of,
    proven,
)
from jitlint.python.walker import iter_children

Facts = frozenset[str]
NOTHING: Facts = frozenset()

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
# Python containers: no JAX array is an instance of them, but a container of tracers is, so
# `isinstance(x, tuple)` holding proves only that `x` is not itself an array (a value known
# to be one never takes that path), not that its elements are concrete.
CONTAINER_TYPES = frozenset(f"builtins.{n}" for n in ("tuple", "list", "dict", "set", "frozenset"))
# Attributes every tracer has (jax.core.Tracer defines them for every abstract array), so
# `hasattr(x, "shape")` failing proves x is not one (optax's `check_shapes_equal` does this).
ARRAY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "at", "aval", "T"})
# Every tracer is an instance of these, so `not isinstance(x, Tracer)` proves x is not one.
TRACER_TYPES = frozenset({"jax.core.Tracer", "jax._src.core.Tracer"})

Resolve = Callable[[cst.CSTNode], frozenset[str]]
# The type-test summary of the function a call calls, when it has one.
PredicateOf = Callable[[cst.Call], Predicate | None]


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


class Guards:
    """Reads guards in one function; `resolve` gives an expression's qualified names,
    `predicate` the type-test summary of a called function."""

    def __init__(
        self, resolve: Resolve, predicate: PredicateOf | None = None, arrays: bool = False
    ) -> None:
        self.resolve = resolve
        self.predicate = predicate
        # False: names proven not to be tracers at all; True: names proven not to be one
        # JAX array (a Python container of tracers passes `isinstance(x, tuple)`).
        self.proves = proves_not_array if arrays else proves_not_tracer
        self._memo: dict[tuple[int, bool], Facts] = {}

    def facts(self, test: cst.BaseExpression, outcome: bool) -> Facts:
        """Names that are not tracers (with `arrays`: not arrays) wherever `test` evaluated
        to `outcome`."""
        key = (id(test), outcome)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._facts(test, outcome)
        return found

    def _facts(self, test: cst.BaseExpression, outcome: bool) -> Facts:
        kind = type(test)
        if kind is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
            return self.facts(test.expression, not outcome)  # type: ignore[attr-defined]
        if kind is cst.BooleanOperation:
            left = self.facts(test.left, outcome)  # type: ignore[attr-defined]
            right = self.facts(test.right, outcome)  # type: ignore[attr-defined]
            is_and = type(test.operator) is cst.And  # type: ignore[attr-defined]
            # `A and B` true: both held; false: one of them failed, only common facts survive.
            return left | right if is_and == outcome else left & right
        if kind is cst.Call:
            if not outcome and self._is_array_hasattr(test):  # type: ignore[arg-type]
                return frozenset({test.args[0].value.value})  # type: ignore[attr-defined]
            found = self._isinstance(test, outcome)  # type: ignore[arg-type]
            if not found and self.predicate is not None:
                predicate = self.predicate(test)  # type: ignore[arg-type]
                if predicate is not None:
                    return proven(predicate, test, outcome, proves_not_tracer)  # type: ignore[arg-type]
            return found
        if kind is cst.Comparison:
            return self._comparison(test, outcome)  # type: ignore[arg-type]
        return NOTHING

    def _isinstance(self, call: cst.Call, outcome: bool) -> Facts:
        args = _positional(call, 2)
        if args is None:
            return NOTHING
        subject = args[0]
        if type(subject) is not cst.Name or not self.resolves(call.func, "builtins.isinstance"):
            return NOTHING
        types = self._types(args[1])
        return frozenset({subject.value}) if self.proves(types, outcome) else NOTHING

    def _is_array_hasattr(self, call: cst.Call) -> bool:
        """`hasattr(x, "shape")` (or another attribute every tracer has)."""
        args = _positional(call, 2)
        if args is None:
            return False
        subject, attr = args
        return (
            type(subject) is cst.Name
            and type(attr) is cst.SimpleString
            and attr.evaluated_value in ARRAY_ATTRIBUTES  # type: ignore[attr-defined]
            and self.resolves(call.func, "builtins.hasattr")
        )

    def _comparison(self, test: cst.Comparison, outcome: bool) -> Facts:
        if len(test.comparisons) != 1:
            return NOTHING
        target = test.comparisons[0]
        op = type(target.operator)
        left, right = test.left, target.comparator
        # `x is None` holds / `x is not None` fails: x is None, a Python value.
        if op in (cst.Is, cst.IsNot) and type(left) is cst.Name and _is_none(right):
            return frozenset({left.value}) if outcome == (op is cst.Is) else NOTHING
        # `type(x) is int`, `type(x) == int`, `type(x) in (int, float)`: a tracer's type is a
        # Tracer subclass, never one of these.
        if outcome and op in (cst.Is, cst.Equal, cst.In) and type(left) is cst.Call:
            subject = _type_call_subject(left, self)
            if subject is not None:
                types = self._types(right) if op is cst.In else self._types_single(right)
                if types and types <= NOT_TRACER_TYPES:
                    return frozenset({subject})
        return NOTHING

    def _types(self, expr: cst.BaseExpression) -> frozenset[str]:
        """The qualified names of a class or a tuple of classes; empty when unsure."""
        if type(expr) is cst.Tuple:
            out: set[str] = set()
            for element in expr.elements:  # type: ignore[attr-defined]
                if type(element) is not cst.Element:
                    return frozenset()
                one = self._types_single(element.value)
                if not one:
                    return frozenset()
                out |= one
            return frozenset(out)
        return self._types_single(expr)

    def _types_single(self, expr: cst.BaseExpression) -> frozenset[str]:
        if type(expr) is cst.Call and _is_none_type(expr, self):
            return frozenset({"types.NoneType"})
        if type(expr) not in (cst.Name, cst.Attribute):
            return frozenset()
        names = self.resolve(expr)
        return frozenset() if "" in names else names

    def resolves(self, expr: cst.BaseExpression, qualname: str) -> bool:
        """Whether `expr` is a plain name meaning exactly `qualname`."""
        return type(expr) is cst.Name and self.resolve(expr) == {qualname}


def _is_none(expr: cst.CSTNode) -> bool:
    return type(expr) is cst.Name and expr.value == "None"  # type: ignore[attr-defined]


def _positional(call: cst.Call, count: int) -> list[cst.BaseExpression] | None:
    """The call's arguments when it has exactly `count`, all plain positional ones."""
    args = call.args
    if len(args) != count or any(a.keyword is not None or a.star for a in args):
        return None
    return [a.value for a in args]


def _type_call_subject(call: cst.Call, guards: Guards) -> str | None:
    """`x` in `type(x)`, when `type` is the builtin."""
    args = _positional(call, 1)
    if args is None:
        return None
    subject = args[0]
    if type(subject) is not cst.Name or not guards.resolves(call.func, "builtins.type"):
        return None
    return subject.value


def _is_none_type(call: cst.Call, guards: Guards) -> bool:
    """`type(None)`."""
    return (
        len(call.args) == 1
        and _is_none(call.args[0].value)
        and guards.resolves(call.func, "builtins.type")
    )


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
