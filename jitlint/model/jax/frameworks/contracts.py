"""Traced by contract: bodies that a framework's users run under jit although the run shows no
call that does (issue #29).

Library code meets `jax.jit` in its users' scripts: an equinox, flax or haiku module's
`__call__` is written to be called inside a jitted step, and a function decorated with
`eqx.filter_jit` is compiled whoever calls it. With no call site in the run, the model still
interprets such a body, at the traced level, with the arguments its own text states: a
parameter annotated as a JAX array (`x: jax.Array`, `Float[Array, "n"]`, `chex.Array`) is a
traced array, and so is one without annotation or default every read of which only an array
admits (`array_used_params`); every other parameter stays unknown, and unknown is never an
error. A contract says its users call the body under jit, not which arguments they leave
out: a parameter defaulting to None, like one annotated as an array, is taken as given, so
the body's `if key is None:` fallback is traced only where a call of the run omits it. A
module class that another module class of the file builds (a part: `self.encoder =
Encoder(cfg)`) is reached through that module, with what it passes, and is not traced by
contract on its own (`submodule_classes`).

The table is keyed by the framework a class belongs to (`ClassInfo.kind`, from its bases'
qualified names); each framework states its contract in its plug-in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import partial

import libcst as cst

from jitlint.model.domain.classes import Classes, ClassInfo
from jitlint.model.domain.plugins import Contract, plugin, plugins
from jitlint.model.jax.narrowing import TRACER_TYPES, tests_for_tracers
from jitlint.python.names import Names, base_class, is_none_literal
from jitlint.python.predicates import predicate_of
from jitlint.python.scopes import module_functions
from jitlint.python.uses import every_use, receiver_method_calls
from jitlint.python.walker import iter_children

# The frameworks' contracts, from their plug-ins (model/jax/frameworks/).
CONTRACTS: dict[str, Contract] = {
    p.contract.framework: p.contract for p in plugins() if p.contract is not None
}


def may_be_traced(defined: set[str], module_constructors: bool = False) -> bool:
    """Whether some contract traces one of the methods a class defines (`__call__`, a
    public method of an equinox module, with `module-constructors` its `__init__`): then its
    base's framework matters, wherever the base is defined."""
    return any(c.traced_methods(defined, module_constructors) for c in CONTRACTS.values())


# Annotations that say "a JAX array": under jit such a parameter holds a tracer. `ArrayLike`
# and NumPy's types are left out: they admit Python numbers and host arrays, which
# `eqx.filter_jit` keeps static and a closure keeps concrete.
ARRAY_TYPES = frozenset(
    {
        "jax.Array", "jax.numpy.ndarray", "jaxtyping.Array", "chex.Array",
        "chex.ArrayDevice", "jaxtyping.PRNGKeyArray", "jax.random.KeyArray",
        # The names of jax's array type before `jax.Array` (jax < 0.4.1).
        "jax.numpy.DeviceArray", "jaxlib.xla_extension.DeviceArray",
        "jax.interpreters.xla.DeviceArray",
    }
)  # fmt: skip
# jaxtyping's dtype-and-shape annotations, `Float[Array, "batch dim"]`: an array when their
# first element is one of ARRAY_TYPES.
_JAXTYPING = frozenset(
    "jaxtyping." + name
    for name in (
        "Shaped", "Num", "Inexact", "Real", "Float", "Complex", "Integer", "Int", "UInt",
        "Bool", "Key", "BFloat16", "Float16", "Float32", "Float64", "Int8", "Int16", "Int32",
        "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Complex64", "Complex128",
    )
)  # fmt: skip


def is_array_annotation(
    names: Names, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
) -> bool:
    """Whether every meaning of `annotation` is a JAX array type."""
    if type(annotation) is cst.Subscript:
        head = names.qualified_names(annotation.value, path)  # type: ignore[attr-defined]
        elements = annotation.slice  # type: ignore[attr-defined]
        if not head or not head <= _JAXTYPING or not elements:
            return False
        first = elements[0].slice
        return type(first) is cst.Index and is_array_annotation(names, first.value, path)
    if type(annotation) not in (cst.Name, cst.Attribute):
        return False
    found = names.qualified_names(annotation, path)
    return bool(found) and found <= ARRAY_TYPES


def array_params(
    names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> frozenset[str]:
    """The parameters of `func` annotated as JAX arrays and without a default (a default is a
    value the caller may keep: nothing says it is traced)."""
    p = func.params
    return frozenset(
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is not None
        and x.default is None
        and is_array_annotation(names, x.annotation.annotation, path)
    )


# Annotations of Python configuration values: `eqx.filter_jit` keeps such arguments static.
_PYTHON_TYPES = frozenset({"int", "float", "bool", "str", "complex"})
# The names a PRNG key goes by: the one array a model's constructor usually takes.
_KEY_NAMES = frozenset({"key", "rng", "prng_key", "rng_key", "seed"})


def built_from_configuration(func: cst.FunctionDef) -> bool:
    """Whether a constructor takes nothing but Python configuration (parameters annotated
    `int`, `float`, `bool`, `str`, or defaulting to such a literal) and a PRNG key. Such a
    module is a model its users build once, eagerly (`model = Model(..., key=key)`), and hand
    to their jitted step: its `__init__` is not traced by contract (log-neural-cdes's
    LogLinearCDE). A constructor that takes arrays or other objects (a spline built from
    its knots) may well be built inside the user's jit."""
    p = func.params
    params = [*p.posonly_params, *p.params, *p.kwonly_params]
    if type(p.star_arg) is cst.Param or p.star_kwarg is not None:
        return False  # *args, **kwargs: anything
    for param in params[1:]:  # after `self`
        if param.name.value in _KEY_NAMES:
            continue
        annotation = param.annotation.annotation if param.annotation is not None else None
        if type(annotation) is cst.Name and annotation.value in _PYTHON_TYPES:
            continue
        if annotation is None and _python_literal(param.default):
            continue
        return False
    return True


def takes_no_arrays(names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]) -> bool:
    """Whether a method takes parameters (after `self`) none of which its text says is an
    array (annotated as one, or read only as one): `fit(self, observations, max_iter=100)`,
    `match(self, frame)`, a constructor from other objects. Such a public method or
    constructor is a setup or driver step its users run in Python (scarlet2's renderers and
    `Scene.fit`); nothing it says makes it code its users call under jit. A method of `self`
    alone still reads its array fields under the contract."""
    p = func.params
    params = [*p.posonly_params, *p.params, *p.kwonly_params][1:]
    if not params:
        return False  # `self` alone, or only `*args`: nothing said either way
    return not (array_params(names, func, path) | array_used_params(names, func, path))


def returns_python_value(func: cst.FunctionDef) -> bool:
    """A method annotated to return a Python scalar (`def workspace_test(self, ...) -> bool`,
    `def horizon_depth(self) -> float: return float(...)`): its interface is a Python value,
    so nothing says its users call it under jit. Such an annotation is sometimes loose (a
    scalar array); then only a real traced caller, not the contract, reaches the method."""
    returns = func.returns.annotation if func.returns is not None else None
    return type(returns) is cst.Name and returns.value in _PYTHON_TYPES


def drivers_of_compiled(
    methods: Mapping[str, cst.FunctionDef], compiled: Set[str], compilers: Set[str] = frozenset()
) -> set[str]:
    """The methods that call, on their own instance, a method the class compiles itself
    (`@eqx.filter_jit def train_step`), directly or through other such methods (`train` calls
    `model.train_epoch`, which calls `model.train_step`): the Python loop that runs the
    compiled step (flowMC's `NFModel.train`). Had the author meant them to run under the
    user's jit, compiling the inner step would have been pointless, so the contract does
    not trace them. `compilers`, the methods whose own body compiles one of the class's
    methods (`update = eqx.filter_jit(self.step_fn)`), are drivers themselves."""
    calls = {name: receiver_method_calls(func) for name, func in methods.items()}
    drivers: set[str] = set(compilers) - set(compiled)
    grew = bool(compiled) or bool(drivers)
    while grew:
        grew = False
        for name, called in calls.items():
            if name not in drivers and name not in compiled and called & (compiled | drivers):
                drivers.add(name)
                grew = True
    return drivers


def submodule_classes(
    classes: Sequence[ClassInfo], class_of: Callable[[cst.Name], ClassInfo | None]
) -> set[int]:
    """The classes of `classes` (a module's classes that a contract traces, by `id` of their
    node) that a method of another of them builds (`self.visual = VisionModel(...)` in a
    constructor, `Dense(...)(x)` inside `__call__`); `class_of` says which class a called
    name is, if any. These are parts of a larger module, which users reach through that
    module, not on their own. Their bodies are traced where the enclosing module's trace
    calls them, with what it passes; the contract does not also trace them with arguments of
    its own (a vision tower that only an eager entry point of the model calls, its text-only
    jitted forward leaving the images None)."""
    ids = {id(info.node) for info in classes}
    built: set[int] = set()
    for info in classes:
        for stmt in info.node.body.body:  # type: ignore[attr-defined]
            if type(stmt) is not cst.FunctionDef:
                continue
            stack: list[cst.CSTNode] = [stmt.body]
            while stack:
                node = stack.pop()
                if type(node) is cst.Call and type(node.func) is cst.Name:  # type: ignore[attr-defined]
                    target = class_of(node.func)  # type: ignore[attr-defined]
                    if (
                        target is not None
                        and id(target.node) in ids
                        and target.node is not info.node
                    ):
                        built.add(id(target.node))
                stack.extend(iter_children(node))
    return built


def _python_literal(node: cst.BaseExpression | None) -> bool:
    if type(node) is cst.UnaryOperation:
        node = node.expression  # -1, -0.5
    if type(node) is cst.Name:
        return node.value in ("True", "False")
    return type(node) in (cst.Integer, cst.Float, cst.SimpleString)


# ---- Parameters used only as arrays ----------------------------------------------------------
# Without an annotation, a contract body's parameter is a traced array when every read of it
# is one only an array admits. Functions whose first parameter is an array operand and whose
# result is an array: a Python number there works too, but a contract's callers run the body
# under their own jit, where every argument is traced.
_ARRAY_FUNCTIONS = frozenset(
    [f"jax.numpy.{n}" for n in (
        "abs", "absolute", "exp", "log", "log1p", "expm1", "sqrt", "square", "sin", "cos",
        "tan", "tanh", "sinh", "cosh", "arctan", "sign", "floor", "ceil", "round", "clip",
        "sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "cumsum",
        "matmul", "dot", "transpose", "swapaxes", "moveaxis", "squeeze",
        "expand_dims", "flip", "roll", "tril", "triu", "diagonal", "trace", "linalg.norm",
        "maximum", "minimum", "where", "isnan", "isfinite", "logical_not", "real", "imag",
        "conj", "ravel", "take_along_axis", "sort", "argsort", "all", "any",
    )]
    + [f"jax.nn.{n}" for n in (
        "relu", "gelu", "sigmoid", "softmax", "log_softmax", "silu", "swish", "tanh",
        "softplus", "elu", "leaky_relu", "logsumexp", "one_hot", "normalize", "standardize",
    )]
    + [f"jax.lax.{n}" for n in (
        "stop_gradient", "exp", "log", "tanh", "logistic", "rsqrt", "sqrt", "abs",
        "dynamic_slice", "dynamic_update_slice", "reduce_max", "reduce_sum", "transpose",
        "squeeze", "expand_dims", "rev", "dot", "dot_general", "conv_general_dilated",
        "convert_element_type", "bitcast_convert_type", "cumsum", "cumprod",
    )]
)  # fmt: skip
# Functions every positional operand of which is an array, as both operands of `@` are.
_ARRAY_OPERANDS = frozenset(
    f"jax.numpy.{n}" for n in ("matmul", "dot", "vdot", "inner", "outer", "linalg.solve")
)
# Attributes and methods of arrays that Python values and containers lack.
_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "T", "at"})
_ARRAY_METHODS = frozenset(
    {
        "astype", "reshape", "squeeze", "ravel", "flatten", "transpose", "sum", "mean",
        "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin", "cumsum",
        "item",
    }
)  # fmt: skip
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power,
               cst.Modulo)  # fmt: skip
# Calls that hand their argument back as a host array (a device array's values): reading the
# result as an array (`jax.device_get(task_id).item()`) reads the argument as one.
_TO_HOST = frozenset({"jax.device_get"})


def array_used_params(
    names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> frozenset[str]:
    """The parameters of `func`, without annotation, every read of which is as a JAX array:
    the first argument of an array function (any operand of `jnp.matmul`,
    `jnp.linalg.solve` and the like), a receiver of `.shape`, `.astype(...)`,
    `.sum()`, `.item()` and the like (NumPy's methods, which Python values and containers
    lack), directly or through `jax.device_get`, an operand of `@` or of arithmetic with an
    array function's result. Any other read (another call, a comparison, iteration, `len`, a
    nested scope) leaves it unknown. A parameter with a default qualifies only when its
    default is a Python scalar or None and every read is one such a value lacks (an array
    attribute or method): the default cannot be what callers rely on (`task_id=-1` read as
    `jax.device_get(task_id).item()`); `scale=1.0` read as `scale * jnp.exp(x)` stays unknown."""
    inside = [*path, func]

    def array_function(expr: cst.BaseExpression, among: frozenset[str]) -> bool:
        found = names.qualified_names(expr, inside)
        return bool(found) and found <= among

    def array_result(expr: cst.BaseExpression) -> bool:
        return type(expr) is cst.Call and array_function(expr.func, _ARRAY_FUNCTIONS)  # type: ignore[attr-defined]

    def read_as_array(parent: cst.CSTNode, above: cst.CSTNode | None) -> bool:
        """`parent` (an attribute of a value) reads the value as an array."""
        if type(parent) is not cst.Attribute:
            return False
        attribute = parent.attr.value
        if attribute in _ARRAY_ATTRIBUTES:
            return True
        return attribute in _ARRAY_METHODS and type(above) is cst.Call and above.func is parent  # type: ignore[attr-defined]

    def as_array(node: cst.Name, ancestors: Sequence[cst.CSTNode], methods_only: bool) -> bool:
        parent = ancestors[-1]
        above = ancestors[-2] if len(ancestors) > 1 else None
        if type(parent) is cst.Arg:
            if parent.keyword is not None or parent.star or type(above) is not cst.Call:
                return False
            if above.args[0] is not parent:  # type: ignore[attr-defined]
                return not methods_only and array_function(above.func, _ARRAY_OPERANDS)  # type: ignore[attr-defined]
            if array_function(above.func, _TO_HOST):  # type: ignore[attr-defined]
                outer = ancestors[:-2]
                return (
                    len(outer) > 1
                    and outer[-1].value is above
                    and read_as_array(  # type: ignore[attr-defined]
                        outer[-1], outer[-2]
                    )
                )
            return not methods_only and array_function(above.func, _ARRAY_FUNCTIONS)  # type: ignore[attr-defined]
        if type(parent) is cst.Attribute and parent.value is node:
            return read_as_array(parent, above)
        if type(parent) is cst.BinaryOperation and not methods_only:
            if type(parent.operator) is cst.MatrixMultiply:
                return True
            other = parent.right if parent.left is node else parent.left
            return isinstance(parent.operator, _ARITHMETIC) and array_result(other)
        return False

    p = func.params
    first = (*p.posonly_params, *p.params)[:1]
    found = set()
    for x in (*p.posonly_params, *p.params, *p.kwonly_params):
        if x.annotation is not None or (
            x in first and type(path[-1] if path else None) is cst.ClassDef
        ):
            continue
        if x.default is None:
            methods_only = False
        elif _python_literal(x.default) or is_none_literal(x.default):
            methods_only = True
        else:
            continue
        if every_use(func, x.name.value, partial(as_array, methods_only=methods_only)):
            found.add(x.name.value)
    return frozenset(found)


# ---- Parameters some read proves an array ----------------------------------------------------
# Builtins whose argument is a value whose kind the code is unsure of: a type test.
_TYPE_TESTS = frozenset(
    f"builtins.{n}" for n in ("isinstance", "issubclass", "hasattr", "getattr", "callable", "type")
)
# Comparisons that ask what a value is, not how big: `x is None`, `k in x`.
_IDENTITY_TESTS = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


def array_read_params(
    names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> frozenset[str]:
    """The parameters of `func`, without annotation or default, that a read proves a JAX
    array (`positions.shape[0]`, `x.dtype`: an array's own attributes, which Python values
    and containers lack) and no read doubts: a test of its type, of None or of membership,
    a truth test, a call of it, `*x`, or an attribute outside the array ones. Other reads
    (an index, an operand, an argument passed on) neither prove nor doubt: the value is the
    array the proving read saw. The parameter must be bound once (every_use). Asked only for
    a contract's own arguments, where the users' jit traces every array leaf; which methods
    are contracts still depends on `array_used_params` alone (`takes_no_arrays`)."""
    inside = [*path, func]
    proved = False

    def no_doubt(node: cst.Name, ancestors: Sequence[cst.CSTNode]) -> bool:
        nonlocal proved
        parent = ancestors[-1]
        above = ancestors[-2] if len(ancestors) > 1 else None
        kind = type(parent)
        if kind is cst.Attribute and parent.value is node:  # type: ignore[attr-defined]
            attribute = parent.attr.value  # type: ignore[attr-defined]
            if attribute in _ARRAY_ATTRIBUTES:
                proved = True
                return True
            # NumPy's methods (`.sum()`, `.item()`) are shared with other libraries' values
            # and prove nothing here (the later operands of `jnp.clip` stay unknown).
            return attribute in _ARRAY_METHODS and type(above) is cst.Call and above.func is parent  # type: ignore[attr-defined]
        if kind is cst.Call:
            return parent.func is not node  # type: ignore[attr-defined]
        if kind is cst.Arg:
            if parent.star:  # type: ignore[attr-defined]
                return False
            if type(above) is cst.Call:
                found = names.qualified_names(above.func, inside)  # type: ignore[attr-defined]
                return not found & _TYPE_TESTS
            return True
        if kind in (cst.If, cst.While, cst.IfExp, cst.Assert):
            return parent.test is not node  # type: ignore[attr-defined]
        if kind is cst.UnaryOperation:
            return type(parent.operator) is not cst.Not  # type: ignore[attr-defined]
        if kind is cst.BooleanOperation or kind is cst.StarredElement:
            return False
        if kind is cst.Comparison:
            return not any(isinstance(c.operator, _IDENTITY_TESTS) for c in parent.comparisons)  # type: ignore[attr-defined]
        if kind is cst.ComparisonTarget:
            return not isinstance(parent.operator, _IDENTITY_TESTS)  # type: ignore[attr-defined]
        return True

    p = func.params
    first = (*p.posonly_params, *p.params)[:1]
    found = set()
    for x in (*p.posonly_params, *p.params, *p.kwonly_params):
        if x.annotation is not None or x.default is not None:
            continue
        if x in first and type(path[-1] if path else None) is cst.ClassDef:
            continue  # `self`
        proved = False
        if every_use(func, x.name.value, no_doubt) and proved:
            found.add(x.name.value)
    return frozenset(found)


# ---- Parameters used only as Python values -------------------------------------------------
# Where a read of a parameter needs a Python value: the arguments of `range`, a truth test
# (`if flag:`, `while flag:`, `x if flag else y`, `not flag`), an index into a Python list or
# tuple display.
_PYTHON_VALUE_CALLS = frozenset({"builtins.range"})


def python_used_params(
    names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> frozenset[str]:
    """The parameters of `func`, without annotation, every read of which needs a Python value
    (`for _ in range(n)`, `if training:`, `labels[i]` of a list display) and none reads as an
    array: a transformation that
    keeps non-arrays static (`eqx.filter_jit`) keeps them static; elsewhere they stay
    unknown, never an error."""
    inside = [*path, func]

    def as_python_value(node: cst.Name, ancestors: Sequence[cst.CSTNode]) -> bool:
        parent = ancestors[-1]
        above = ancestors[-2] if len(ancestors) > 1 else None
        if type(parent) is cst.Arg:
            if parent.keyword is not None or parent.star or type(above) is not cst.Call:
                return False
            found = names.qualified_names(above.func, inside)  # type: ignore[attr-defined]
            return bool(found) and found <= _PYTHON_VALUE_CALLS
        if type(parent) in (cst.If, cst.While, cst.IfExp):
            return parent.test is node  # type: ignore[attr-defined]
        if type(parent) is cst.Index and len(ancestors) > 2:
            return python_sequence_index(ancestors[-3], ancestors[:-3])
        return type(parent) is cst.UnaryOperation and type(parent.operator) is cst.Not  # type: ignore[attr-defined]

    def python_sequence_index(subscript: cst.CSTNode, outer: Sequence[cst.CSTNode]) -> bool:
        """`subscript` is `NAME[...]` with one index, NAME bound only to a list or tuple
        display (`labels = ["a", "b"]`, in the function or the module)."""
        if type(subscript) is not cst.Subscript or len(subscript.slice) != 1:
            return False
        base = subscript.value
        if type(base) is not cst.Name:
            return False
        bindings = names.lookup(base.value, [*inside, *outer])
        return bool(bindings) and all(
            b.kind == "assign" and type(b.node) in (cst.List, cst.Tuple) for b in bindings
        )

    p = func.params
    return frozenset(
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is None and every_use(func, x.name.value, as_python_value)
    )


# ---- Bodies that test for tracers ------------------------------------------------------------
# The last names of the tracer types: text every spelling of one holds.
_TRACER_WORDS = frozenset(qualname.rsplit(".", 1)[-1] for qualname in TRACER_TYPES)
TRACER_TEST = Contract(
    "tracer-test", frozenset(), "its own test for tracers says it is meant to be"
)


def tracer_testing_functions(
    names: Names, source: str | None = None
) -> Iterator[tuple[cst.FunctionDef, str, Contract]]:
    """Top-level functions and methods of top-level classes whose body asks whether a value
    is a tracer (`if not_jax_tracer(mask):`): written to run under jit, they are traced by
    contract, every parameter unknown. The predicates themselves are not (their body is the
    test). `source`, the module's text where known: a tracer type is spelled `Tracer` in
    every name that resolves to it (an import, an attribute, a star import's name), and
    only this module's own functions count as predicates, so a module whose text never
    says `Tracer` has none of these bodies and is not walked (most of it would be)."""
    if source is not None and not any(word in source for word in _TRACER_WORDS):
        return
    module = names.module
    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            candidates = [(statement, statement.name.value)]
        elif type(statement) is cst.ClassDef and type(statement.body) is cst.IndentedBlock:
            candidates = [
                (inner, f"{statement.name.value}.{inner.name.value}")
                for inner in statement.body.body
                if type(inner) is cst.FunctionDef
            ]
        else:
            continue
        for func, owner in candidates:
            path = [module] if func is statement else [module, statement, statement.body]
            if predicate_of(names, func, path) is None and tests_for_tracers(names, func, path):
                yield func, owner, TRACER_TEST


# ---- `assume-traced`: more entry points, named by the project ------------------------------
# The config key `assume-traced` (and `--assume-traced`) lists patterns; every matching body
# is traced by contract, with the same reading of annotations as above.
PUBLIC_ARRAY_FUNCTIONS = "public-array-functions"
# The constructor of a framework module whose contract leaves it to the project
# (`Contract.constructor_when_asked`: equinox), besides `__call__` and its public methods.
MODULE_CONSTRUCTORS = "module-constructors"
ASSUME_KEY = "assume-traced"  # where the patterns ride in a file's rule options


@dataclass(frozen=True)
class Assumptions:
    """The patterns of `assume-traced`, parsed."""

    decorators: frozenset[str] = frozenset()  # "decorator:pkg.traced"
    bases: frozenset[str] = frozenset()  # "base:pkg.Layer": public methods and `__call__`
    public_array_functions: bool = False
    module_constructors: bool = False
    # "frame:PATH:LINE" (what `explain-error` passes): the function holding that line of that
    # file ran under jit, as a traceback shows; `lines` are this file's (`for_path`).
    frames: frozenset[tuple[str, int]] = frozenset()
    lines: frozenset[int] = frozenset()

    @classmethod
    def parse(cls, patterns: Iterable[str]) -> Assumptions:
        decorators, bases, public, methods, frames = set(), set(), False, False, set()
        for pattern in patterns:
            problem = assumption_problem(pattern)
            if problem is not None:
                raise ValueError(problem)
            kind, _, name = pattern.partition(":")
            if pattern == PUBLIC_ARRAY_FUNCTIONS:
                public = True
            elif pattern == MODULE_CONSTRUCTORS:
                methods = True
            elif kind == "decorator":
                decorators.add(name)
            elif kind == "frame":
                path, _, line = name.rpartition(":")
                frames.add((path, int(line)))
            else:
                bases.add(name)
        return cls(frozenset(decorators), frozenset(bases), public, methods, frozenset(frames))

    def for_path(self, path: str) -> Assumptions:
        """These assumptions, with the traceback lines of the file `path` (display path)."""
        if not self.frames:
            return self
        lines = frozenset(line for where, line in self.frames if where == path)
        return dataclasses.replace(self, lines=lines)

    def __bool__(self) -> bool:
        return bool(
            self.decorators
            or self.bases
            or self.public_array_functions
            or self.module_constructors
            or self.lines
        )


def asked_contract(contract: Contract) -> Contract:
    """`contract`, saying that `module-constructors` is why its framework's module's
    constructor is traced."""
    found = plugin(contract.framework)
    display = found.display if found is not None else contract.framework
    setting = f"the assume-traced setting `{MODULE_CONSTRUCTORS}`"
    says = f"{setting} assumes {display} modules are built under jit"
    return dataclasses.replace(contract, says=says)


def assumption_problem(pattern: str) -> str | None:
    """Why `pattern` is not an `assume-traced` pattern, or None."""
    if pattern in (PUBLIC_ARRAY_FUNCTIONS, MODULE_CONSTRUCTORS):
        return None
    kind, colon, name = pattern.partition(":")
    if kind == "frame" and name.rpartition(":")[2].isdigit() and name.rpartition(":")[0]:
        return None  # internal: explain-error's traceback frames
    dotted = all(part.isidentifier() for part in name.split("."))
    if colon and kind in ("decorator", "base") and name and dotted:
        return None
    return (
        f"`{pattern}` is not an assume-traced pattern: use `decorator:QUALIFIED.NAME`, "
        f"`base:QUALIFIED.NAME`, `{PUBLIC_ARRAY_FUNCTIONS}` or `{MODULE_CONSTRUCTORS}`"
    )


def assumed_classes(
    names: Names, classes: Classes, assumptions: Assumptions
) -> Iterator[tuple[ClassInfo, Contract]]:
    """Top-level classes one of whose bases (along the order) is a `base:` pattern."""
    if not assumptions.bases:
        return
    module = names.module
    for statement in module.body:
        if type(statement) is not cst.ClassDef:
            continue
        info = classes.of(statement, [module])
        for cls in info.mro:
            found = {
                q
                for base in cls.node.bases
                for q in names.qualified_names(base_class(base.value), cls.path)
            } & assumptions.bases
            if found:
                says = f"the assume-traced setting assumes classes derived from `{min(found)}` are"
                yield info, Contract("assumed", frozenset({"__call__"}), says, public=True)
                break


def assumed_functions(
    names: Names, assumptions: Assumptions
) -> Iterator[tuple[cst.FunctionDef, str, Contract]]:
    """Top-level functions (and methods of top-level classes) that a `decorator:` pattern
    decorates, and with `public-array-functions`, the public top-level functions with a
    parameter annotated as an array or used only as one (`b.shape[0]`, `jnp.exp(x)`):
    (function, the name messages give it, contract)."""
    if not assumptions:
        return
    module = names.module
    if assumptions.lines:
        yield from _frame_functions(module, assumptions.lines)
    for statement in module.body:
        kind = type(statement)
        if kind is cst.FunctionDef:
            found = _assumed(names, statement, [module], assumptions, public=True)
            if found is not None:
                yield statement, statement.name.value, found  # type: ignore[misc]
        elif kind is cst.ClassDef and type(statement.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
            for inner in statement.body.body:  # type: ignore[attr-defined]
                if type(inner) is cst.FunctionDef:
                    found = _assumed(names, inner, [module], assumptions, public=False)
                    if found is not None:
                        owner = f"{statement.name.value}.{inner.name.value}"  # type: ignore[attr-defined]
                        yield inner, owner, found


def _assumed(
    names: Names,
    func: cst.FunctionDef,
    path: list[cst.CSTNode],
    assumptions: Assumptions,
    public: bool,
) -> Contract | None:
    for decorator in func.decorators:
        expr = decorator.decorator
        expr = expr.func if type(expr) is cst.Call else expr  # type: ignore[attr-defined]
        found = names.qualified_names(expr, path) & assumptions.decorators
        if found:
            says = f"the assume-traced setting assumes functions decorated with `@{min(found)}` are"
            return Contract("assumed", frozenset(), says)
    if (
        public
        and assumptions.public_array_functions
        and not func.name.value.startswith("_")
        and not func.decorators
        and (array_params(names, func, path) or array_used_params(names, func, path))
    ):
        says = "the assume-traced setting assumes public functions taking arrays are"
        return Contract("assumed", frozenset(), says)
    return None


def _frame_functions(
    module: cst.Module, lines: frozenset[int]
) -> Iterator[tuple[cst.FunctionDef, str, Contract]]:
    """The top-level functions and methods of top-level classes holding a traceback's line."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    says = "the traceback shows it running under jit"
    for statement in module.body:
        candidates = module_functions([statement])
        for func, owner in candidates:
            where = positions[func]
            if any(where.start.line <= line <= where.end.line for line in lines):
                yield func, owner, Contract("frame", frozenset(), says, parameters_traced=True)
