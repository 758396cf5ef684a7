"""Values in TensorFlow graph code: tensor or Python value, and where a tensor's value
comes from (dtypes are in tf_dtypes.py).

A value's origins say what its contents depend on, which decides whether XLA can treat it as
a compile-time constant (hazards T03):
- "param": an argument of the compiled function (or data computed from one): XLA folds it
  to a constant per distinct value, i.e. silently recompiles;
- "variable": a `tf.Variable`'s value: the same;
- "loop": a `tf.range` / `tf.while_loop` loop variable: never constant, compiling fails;
- "rng": a stateful random op: never constant, compiling fails.
`tf.shape(x)` and friends have no origin: XLA compiles per static shape, so they are
constants. Names are read per program point where the block structure tells which
assignments reach a read (python/reaching.py); elsewhere a name joins all its assignments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from jitlint.model.library.tf_facts import op_table
from jitlint.model.tf.api import (
    IS_TENSOR,
    NON_TENSOR_CALLS,
    NON_TENSOR_NAMESPACES,
    PARTITION_KEEPING_RAGGED,
    SHAPE_QUERIES,
    STATEFUL_RNG,
    VARIABLE_CLASSES,
    WEIGHT_MAKERS,
    canonical,
    list_output,
    proves_container,
    proves_not_tensor,
    proves_tensor,
    single_output,
)
from jitlint.model.tf.function import LITERAL_FACT, literal_fact
from jitlint.model.tf.repeats import bind
from jitlint.model.tf_records import UNKNOWN_FACT, Argument, decode_arguments
from jitlint.python.attributes import assigned_only_plainly, self_assignments
from jitlint.python.binding import (
    DOUBLE_STARRED,
    STARRED,
    Signature,
    call_arguments,
    receivers,
)
from jitlint.python.binding import bind as bind_arguments
from jitlint.python.builtins_facts import container_annotation, tuple_element_annotation
from jitlint.python.names import Names
from jitlint.python.predicates import Guards, Predicate, TypeTest
from jitlint.python.reaching import guards_passed, reaching
from jitlint.python.walker import iter_children

TENSOR, PYTHON, UNKNOWN = "tensor", "python", "unknown"
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)
_STATIC_ATTRS = {"shape", "dtype", "ndim", "rank", "name", "device", "graph", "op"}
_PY_BUILTINS = {
    f"builtins.{n}"
    for n in ("len", "isinstance", "hasattr", "callable", "type", "getattr", "str", "repr", "id")
}
_NUMERIC_BUILTINS = {
    f"builtins.{n}" for n in ("int", "float", "bool", "min", "max", "abs", "round", "range", "sum")
}

# Methods of tf.Tensor / tf.Variable / tf.TensorArray that return tensors. Other methods on a
# value believed to be a tensor (`.detach()`, `.cpu()`) mean it is something else.
_TENSOR_METHODS = {
    "read_value", "value", "assign", "assign_add", "assign_sub", "read", "stack", "gather",
    "concat", "write", "to_tensor", "__getitem__", "__add__", "__mul__", "__sub__",
}  # fmt: skip


@dataclass(frozen=True)
class Value:
    """What a name holds in graph code: its kind and where it came from."""

    kind: str
    origins: frozenset[str] = frozenset()


PY = Value(PYTHON)
UNK = Value(UNKNOWN)


# Context managers whose body runs eagerly inside a graph function.
EAGER_SCOPES = frozenset(
    {
        "tensorflow.init_scope",
        "tensorflow.python.framework.ops.init_scope",
        "tensorflow.python.eager.context.eager_mode",
    }
)
# Internal modules whose functions build ops (array_ops.shape, gen_math_ops.add, ...).
_INTERNAL_OPS = ("tensorflow.python.ops.", "tensorflow.python.framework.constant_op.")


def fixed_width(piece: cst.Slice) -> bool:
    """`x[i : i + k]` (and `x[i + a : i + b]`) with a constant offset between the bounds."""
    lower, upper = piece.lower, piece.upper
    if lower is None or upper is None or type(upper) is not cst.BinaryOperation:
        return False
    if type(upper.operator) not in (cst.Add, cst.Subtract):
        return False
    if upper.left.deep_equals(lower):
        return type(upper.right) in (cst.Integer, cst.Name, cst.Attribute)
    if type(lower) is cst.BinaryOperation and type(lower.operator) is cst.Add:
        return upper.left.deep_equals(lower.left)
    return False


# A tensor whose shape depends on the data ("dynamic-shape:<dim>", "*" for any dim): a
# slice with loop-carried bounds, the result of an op with a data-dependent output shape, a
# RaggedTensor ("ragged@<id>" names the op that made it). The size of such a dimension
# (`tf.shape(x)[dim]`, `tf.size(x)`) is "dynamic-size" ("dynamic-size:<dim>" for the whole
# shape vector): never a compile-time constant under XLA.
DYNAMIC_SHAPE, DYNAMIC_SIZE = "dynamic-shape", "dynamic-size"
# XLA bounds such a size from above (value inference), so a shape argument that is the size,
# or a sum, difference or product of sizes, compiles as a bounded dynamic shape; a quotient
# has no bound it can infer, and there compiling fails ("Input 1 to node `Repeat/Tile` with
# op Tile must be a compile-time constant"). Observed with TensorFlow 2.21 on XLA:CPU inside
# a `tf.while_loop` slicing `x[i:end]`: `tf.zeros([k + 1, 4])`, `tf.reshape(b, [k, 2, 2])`,
# `tf.range(k)`, `tf.repeat(t, k * 2)` compile; `tf.repeat(t, k // n)`, `tf.tile(t, [k //
# n, 1])`, `tf.zeros([k // 2, 4])`, `tf.reshape(b, [k // 2, -1])` fail.
DYNAMIC_QUOTIENT = "dynamic-quotient"
_QUOTIENTS = (cst.FloorDivide, cst.Divide, cst.Modulo)


def _divided(value: Value) -> Value:
    """A quotient of values: a data-dependent size in it becomes a dynamic quotient."""
    if not any(o.startswith(DYNAMIC_SIZE) for o in value.origins):
        return value
    kept = {o for o in value.origins if not o.startswith(DYNAMIC_SIZE)}
    return Value(value.kind, frozenset(kept | {DYNAMIC_QUOTIENT}))


_VALUE_LOOP_ORIGINS = {"loop", "rng"}
_QUOTIENT_OPS = {
    f"tensorflow.{p}{op}"
    for p in ("", "math.")
    for op in ("floordiv", "truediv", "divide", "floormod", "mod")
}
_REDUCTIONS = {
    f"tensorflow.{p}reduce_{op}"
    for p in ("", "math.")
    for op in ("sum", "mean", "max", "min", "prod", "any", "all", "logsumexp", "std", "variance")
}


def _unless_none(expr: cst.CSTNode) -> list[cst.CSTNode]:
    """The values `expr` may have other than `None`: `w if c else None` may be `w`."""
    if type(expr) is cst.Name and expr.value == "None":  # type: ignore[attr-defined]
        return []
    if type(expr) is cst.IfExp:
        return [*_unless_none(expr.body), *_unless_none(expr.orelse)]  # type: ignore[attr-defined]
    return [expr]


_PYTHON_SCALARS = frozenset({"int", "float", "bool", "str"})


def _python_annotated(param: cst.CSTNode | None) -> bool:
    """A parameter annotated as a Python scalar (`size: int`)."""
    annotation = getattr(param, "annotation", None)
    return (
        annotation is not None
        and type(annotation.annotation) is cst.Name
        and annotation.annotation.value in _PYTHON_SCALARS
    )


def _every_param(func: cst.FunctionDef) -> tuple[cst.Param, ...]:
    params = func.params
    return (*params.posonly_params, *params.params, *params.kwonly_params)


def join(values: Iterable[Value]) -> Value:
    """One of several possible values (a name assigned twice)."""
    values = list(values)
    if not values:
        return UNK
    kinds = {v.kind for v in values}
    origins = frozenset().union(*(v.origins for v in values))
    return Value(kinds.pop() if len(kinds) == 1 else UNKNOWN, origins)


def combine(values: Iterable[Value]) -> Value:
    """The result of an operation on these values: a tensor if any operand is one."""
    values = list(values)
    origins = frozenset().union(*(v.origins for v in values))
    if any(v.kind == TENSOR for v in values):
        return Value(TENSOR, origins)
    if all(v.kind == PYTHON for v in values):
        return Value(PYTHON, origins)
    return Value(UNKNOWN, origins)


def _shape_origins(value: Value) -> set[str]:
    return {o for o in value.origins if o.startswith(DYNAMIC_SHAPE)}


def _returns(
    func: cst.FunctionDef, base: Sequence[cst.CSTNode]
) -> list[tuple[cst.BaseExpression, tuple[cst.CSTNode, ...]]]:
    """The values a function returns, with their paths (nested functions excluded)."""
    out: list[tuple[cst.BaseExpression, tuple[cst.CSTNode, ...]]] = []
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(func.body, (*base, func))]
    while stack:
        node, path = stack.pop()
        kind = type(node)
        here = (*path, node)
        if kind is cst.Return:
            if node.value is not None:  # type: ignore[attr-defined]
                out.append((node.value, here))  # type: ignore[attr-defined]
            continue
        if kind in _CONTAINERS:
            stack.extend((child, here) for child in iter_children(node))
    return out


@dataclass(frozen=True)
class Def:
    """One binding of a local name."""

    kind: str  # "param", "assign", "elem", "for", "for-elem", "aug", "python", "other"
    node: cst.CSTNode | None
    path: tuple[cst.CSTNode, ...]
    # An "elem" of `a, b = value`: which of how many names it binds.
    element: tuple[int, int] | None = None


def _index_shape_vector(origins: frozenset[str], expr: cst.Subscript) -> set[str]:
    """Origins of `shape[k]` for a shape vector whose "dynamic-size:<dim>" origins say which
    entries depend on the data: entry `k` is a dynamic size only if `k` is such a dim (or
    not known)."""
    out = set()
    literal = None
    if len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
        index = expr.slice[0].slice.value  # type: ignore[attr-defined]
        if type(index) is cst.Integer:
            literal = index.value
    for origin in origins:
        if not origin.startswith(DYNAMIC_SIZE + ":"):
            out.add(origin)
            continue
        dim = origin.split(":", 1)[1]
        if literal is None or dim in ("*", literal):
            out.add(DYNAMIC_SIZE)
    return out


def _dynamic_output(names: frozenset[str], call: cst.Call) -> bool:
    """An op whose output shape depends on the data (the op table's `dynamic_shape`; a
    one-argument `tf.where`), or a RaggedTensor made from data."""
    if names and names <= PARTITION_KEEPING_RAGGED:
        return False  # the rows of the RaggedTensor it was given, whatever made that one
    if any(n.startswith("tensorflow.ragged.") for n in names):
        return True
    _, table = op_table()
    entries = [table.get(n) for n in names]
    if not entries or any(e is None or not e.dynamic_shape for e in entries):
        return False
    if any(n.endswith(".where") for n in names):
        return len(call.args) == 1 and call.args[0].keyword is None
    return True


def _function_defs(
    func: cst.FunctionDef | cst.Lambda, base: Sequence[cst.CSTNode]
) -> dict[str, list[Def]]:
    """Every binding a function body makes, by name (nested scopes excluded)."""
    defs: dict[str, list[Def]] = {}
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        defs.setdefault(param.name.value, []).append(Def("param", param, (*base, func)))
    for star in (params.star_arg, params.star_kwarg):
        if type(star) is cst.Param:
            defs.setdefault(star.name.value, []).append(Def("other", None, ()))
    if type(func) is cst.Lambda:
        return defs
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(func.body, (*base, func))]
    while stack:
        node, path = stack.pop()
        kind = type(node)
        here = (*path, node)
        if kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                _bind(defs, target.target, Def("assign", node.value, here))  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
            _bind(defs, node.target, Def("assign", node.value, here))  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:
            _bind(defs, node.target, Def("aug", node.value, here))  # type: ignore[attr-defined]
        elif kind is cst.For:
            _bind(defs, node.target, Def("for", node.iter, here))  # type: ignore[attr-defined]
        elif kind is cst.With:
            for item in node.items:  # type: ignore[attr-defined]
                if item.asname is not None:
                    _bind(defs, item.asname.name, Def("other", None, here))
        elif kind is cst.ExceptHandler and node.name is not None:  # type: ignore[attr-defined]
            _bind(defs, node.name.name, Def("other", None, here))  # type: ignore[attr-defined]
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            defs.setdefault(node.name.value, []).append(Def("python", node, here))  # type: ignore[attr-defined]
            continue
        elif kind is cst.Import or kind is cst.ImportFrom:
            names = node.names  # type: ignore[attr-defined]
            if type(names) is not cst.ImportStar:
                for alias in names:
                    name = alias.asname.name if alias.asname else alias.name
                    while type(name) is cst.Attribute:
                        name = name.value
                    if type(name) is cst.Name:
                        defs.setdefault(name.value, []).append(Def("python", None, here))
            continue
        if kind in _CONTAINERS:
            stack.extend((child, here) for child in iter_children(node))
    return defs


# Statements whose children may bind names; expressions are not searched (walrus is rare).
_CONTAINERS = {
    cst.IndentedBlock,
    cst.SimpleStatementLine,
    cst.SimpleStatementSuite,
    cst.If,
    cst.Else,
    cst.For,
    cst.While,
    cst.With,
    cst.Try,
    cst.TryStar,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.Match,
    cst.MatchCase,
}


def _bind(defs: dict[str, list[Def]], target: cst.CSTNode, definition: Def) -> None:
    kind = type(target)
    if kind is cst.Name:
        defs.setdefault(target.value, []).append(definition)  # type: ignore[attr-defined]
    elif kind is cst.Tuple or kind is cst.List:
        value = definition.node
        elements = target.elements  # type: ignore[attr-defined]
        if (
            definition.kind == "assign"
            and type(value) in (cst.Tuple, cst.List)
            and len(value.elements) == len(elements)  # type: ignore[attr-defined]
            and not any(type(e) is cst.StarredElement for e in (*elements, *value.elements))  # type: ignore[attr-defined]
        ):
            # `b, h = shape[0], shape[1]`: each name gets its own element.
            for element, part in zip(elements, value.elements, strict=True):  # type: ignore[attr-defined]
                _bind(defs, element.value, Def("assign", part.value, definition.path))
            return
        element_kind = {"for": "for-elem", "assign": "elem"}.get(definition.kind, "other")
        starred = any(type(e) is cst.StarredElement for e in elements)
        for index, element in enumerate(elements):
            where = None if starred or element_kind != "elem" else (index, len(elements))
            part = Def(element_kind, definition.node, definition.path, where)
            _bind(defs, element.value, part)
    elif kind is cst.StarredElement:
        _bind(defs, target.value, Def("other", None, ()))  # type: ignore[attr-defined]


# `tf.is_tensor(x)` read as the type test it is: True for every tensor, Variable,
# RaggedTensor and SparseTensor (model/tf/api.py's TENSOR_TYPES).
_IS_TENSOR_TEST = Predicate(Signature(("x",)), TypeTest("x", frozenset({IS_TENSOR})))
# An attribute every tensor, Variable and TensorArray has: a failed `hasattr(x, "dtype")`
# proves x is none of them.
_TENSOR_ATTRIBUTES = frozenset({"dtype"})
_GUARD_CALLS = frozenset({"isinstance", "is_tensor", "type", "hasattr"})


def _guard_subjects(scope: cst.CSTNode) -> set[str]:
    """The plain names a type test in `scope` reads, as spelled (a cheap gate for narrowing)."""
    found: set[str] = set()
    stack = [scope]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Call and node.args and type(node.args[0].value) is cst.Name:  # type: ignore[attr-defined]
            func = node.func  # type: ignore[attr-defined]
            leaf = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", None)
            if leaf in _GUARD_CALLS:
                found.add(node.args[0].value.value)  # type: ignore[attr-defined]
        elif (
            kind is cst.Comparison
            and type(node.left) is cst.Name  # type: ignore[attr-defined]
            and any(type(c.operator) in (cst.Is, cst.IsNot) for c in node.comparisons)  # type: ignore[attr-defined]
        ):
            found.add(node.left.value)  # type: ignore[attr-defined]
        stack.extend(iter_children(node))
    return found


class TfValues:
    """Abstract values of expressions; `model` supplies graph contexts and loop bodies."""

    def __init__(self, names: Names, model: object, received: bool = False) -> None:
        self.names = names
        self.model = model
        # Whether a top-level helper only other files call takes its parameters from their
        # "graph" records: only for the model's `tf.is_tensor` branches (model.py
        # `_non_tensor_branch`); every rule's values leave them unknown, as before.
        self.received = received
        self._defs: dict[int, dict[str, list[Def]]] = {}
        self._memo: dict[int, Value] = {}
        self._dtype_memo: dict[int, str | None] = {}
        self.sources: dict[int, cst.CSTNode] = {}  # the ops named by "ragged@<id>" origins
        self._guarded_memo: dict[int, frozenset[str]] = {}

    # ----- names ----------------------------------------------------------------------------

    def defs(
        self, func: cst.FunctionDef | cst.Lambda, base: Sequence[cst.CSTNode]
    ) -> dict[str, list[Def]]:
        found = self._defs.get(id(func))
        if found is None:
            found = self._defs[id(func)] = _function_defs(func, base)
        return found

    def name_defs(self, name: cst.Name, path: Sequence[cst.CSTNode]) -> list[Def] | None:
        """The definitions `name` may refer to at the end of `path`; None if not local to a
        function (module level, builtins, comprehension)."""
        found = self.names.lookup_with_path(name.value, path)
        if found is None:
            return None
        scope_path = found[1]
        scope = scope_path[-2] if len(scope_path) >= 2 else scope_path[-1]
        if type(scope) not in (cst.FunctionDef, cst.Lambda) or scope_path[-1] is not scope.body:  # type: ignore[attr-defined]
            return None
        defs = self.defs(scope, scope_path[:-2]).get(name.value)  # type: ignore[arg-type]
        if not defs:
            return defs
        if len(defs) > 1:
            # Names per program point: only the bindings that reach this read.
            kept = reaching([d.path for d in defs], (*path, name), scope)
            defs = defs if kept is None else [defs[i] for i in kept]
        if name.value not in self._guarded(scope):
            return defs
        return self._narrowed(name, path, scope, defs)

    def _guarded(self, scope: cst.CSTNode) -> frozenset[str]:
        """The names a type test in `scope` reads (`isinstance(x, ...)`, `tf.is_tensor(x)`,
        `type(x)`, `hasattr(x, ...)`, `x is None`): the only ones narrowing can change."""
        found = self._guarded_memo.get(id(scope))
        if found is None:
            found = self._guarded_memo[id(scope)] = frozenset(_guard_subjects(scope))
        return found

    def _narrowed(
        self, name: cst.Name, path: Sequence[cst.CSTNode], scope: cst.CSTNode, defs: list[Def]
    ) -> list[Def]:
        """The definitions left once the guards each passes on its way to this read are
        applied (python/reaching.py finds them, python/predicates.py reads them): a tensor
        where a test proved the name is not one, or a Python value where it proved a tensor,
        is a reading that cannot hold here. Narrowing only leaves definitions out; where it
        leaves none, the read is unknown."""
        read = (*path, name)

        def resolve(expr: cst.CSTNode) -> frozenset[str]:
            return canonical(frozenset(self.names.qualified_names(expr, path)))

        def is_tensor_call(call: cst.Call) -> Predicate | None:
            return _IS_TENSOR_TEST if resolve(call.func) == {IS_TENSOR} else None

        not_tensor = Guards(resolve, None, proves_not_tensor, _TENSOR_ATTRIBUTES)
        tensor = Guards(resolve, is_tensor_call, proves_tensor)
        container = Guards(resolve, None, proves_container)
        kept = []
        for definition in defs:
            passed = guards_passed(definition.path, read, scope, name.value)
            if passed:
                proven_not = any(name.value in not_tensor.facts(t, o) for t, o in passed)
                proven = any(name.value in tensor.facts(t, o) for t, o in passed)
                # A Python container: no other binding than one read as a list or tuple
                # (a display, `tf.unstack(x)`) is the value here, neither a tensor nor None;
                # a graph root's whole input stays, its elements tensors (`inputs[0]`).
                if (
                    any(name.value in container.facts(t, o) for t, o in passed)
                    and not self._python_list(definition)
                    and not self._may_be_structure(definition)
                ):
                    continue
                if proven_not or proven:
                    kind = self._def_value(name, definition).kind
                    if (proven_not and kind == TENSOR) or (proven and kind == PYTHON):
                        continue
            kept.append(definition)
        return kept

    def _may_be_structure(self, definition: Def) -> bool:
        """`definition` binds a parameter of a graph root (a Keras `call`'s inputs), whose
        whole value may be a list of tensors: under a container test its elements are the
        root's tensors (`inputs[0]`). A helper's parameter is not kept: what reaches it is
        read where the helper is called."""
        if definition.kind != "param":
            return False
        context = self.model.function_context(definition.path[-1])  # type: ignore[attr-defined]
        return context is not None and context.root

    def _python_list(self, definition: Def) -> bool:
        """`definition` binds a list or tuple display, or a TF function's list of tensors."""
        node = definition.node
        if definition.kind != "assign" or node is None:
            return False
        return type(node) in (cst.List, cst.Tuple) or self.tensor_list(node, definition.path)

    # ----- values -------------------------------------------------------------------------

    def value(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Value:
        key = id(expr)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = UNK  # recursion guard
        result = self._value(expr, path)
        self._memo[key] = result
        return result

    def _value(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Value:
        kind = type(expr)
        if kind in _LITERALS or kind is cst.FormattedString:
            return PY
        if kind is cst.Name:
            return self._name(expr, path)  # type: ignore[arg-type]
        if kind is cst.Attribute:
            if expr.attr.value in _STATIC_ATTRS:  # type: ignore[attr-defined]
                return PY
            if type(expr.value) is cst.Name and expr.value.value == "self":  # type: ignore[attr-defined]
                return self._self_attribute(expr, path)  # type: ignore[arg-type]
            if self.names.qualified_names(expr, path) - {""}:
                return PY  # a module attribute such as tf.float32
            return UNK
        if kind is cst.Call:
            return self._call(expr, path)  # type: ignore[arg-type]
        if kind is cst.Subscript:
            parts = [self.value(expr.value, path)]  # type: ignore[attr-defined]
            for element in expr.slice:  # type: ignore[attr-defined]
                inner = element.slice
                if type(inner) is cst.Index:
                    parts.append(self.value(inner.value, path))
                elif type(inner) is cst.Slice:
                    parts.extend(
                        self.value(b, path)
                        for b in (inner.lower, inner.upper, inner.step)
                        if b is not None
                    )
            if parts[0].kind == PYTHON and any(p.kind != PYTHON for p in parts[1:]):
                return Value(UNKNOWN, combine(parts).origins)
            found = combine(parts)
            if found.kind != TENSOR:
                return found
            origins = _index_shape_vector(parts[0].origins, expr) | (
                found.origins - parts[0].origins
            )
            grown = self._growing_slice(expr, path)  # type: ignore[arg-type]
            if grown is not None:
                origins |= {f"{DYNAMIC_SHAPE}:{grown}"}
            return Value(TENSOR, frozenset(origins))
        if kind is cst.BinaryOperation:
            found = combine([self.value(expr.left, path), self.value(expr.right, path)])  # type: ignore[attr-defined]
            if type(expr.operator) in _QUOTIENTS:  # type: ignore[attr-defined]
                return _divided(found)
            return found
        if kind is cst.UnaryOperation:
            return self.value(expr.expression, path)  # type: ignore[attr-defined]
        if kind is cst.BooleanOperation:
            return combine([self.value(expr.left, path), self.value(expr.right, path)])  # type: ignore[attr-defined]
        if kind is cst.Comparison:
            ops = {type(c.operator) for c in expr.comparisons}  # type: ignore[attr-defined]
            if ops <= {cst.Is, cst.IsNot}:
                return PY
            if ops & {cst.In, cst.NotIn}:
                return UNK
            parts = [self.value(expr.left, path)]  # type: ignore[attr-defined]
            parts += [self.value(c.comparator, path) for c in expr.comparisons]  # type: ignore[attr-defined]
            return combine(parts)
        if kind is cst.IfExp:
            return join([self.value(expr.body, path), self.value(expr.orelse, path)])  # type: ignore[attr-defined]
        if kind is cst.Tuple or kind is cst.List:
            elements = expr.elements  # type: ignore[attr-defined]
            if any(type(e) is cst.StarredElement for e in elements):
                return UNK
            return combine([self.value(e.value, path) for e in elements]) if elements else PY
        return UNK

    def _name(self, name: cst.Name, path: Sequence[cst.CSTNode]) -> Value:
        if name.value in ("True", "False", "None"):
            return PY
        defs = self.name_defs(name, path)
        if defs is None:
            found = self.names.lookup_with_path(name.value, path)
            if found is None:
                return PY  # a builtin
            bindings, scope_path = found
            if type(scope_path[-1]) is not cst.Module:
                return UNK  # a class body or comprehension
            values = []
            for binding in bindings:
                if binding.kind in ("import", "def", "class"):
                    values.append(PY)
                elif binding.kind == "assign" and binding.node is not None:
                    inner = self.value(binding.node, scope_path)
                    # Module-level tensors are captured by the function: inputs, not constants.
                    values.append(PY if inner.kind == PYTHON else UNK)
                else:
                    values.append(UNK)
            return join(values)
        return join(self._def_value(name, d) for d in defs)

    def _def_value(self, name: cst.Name, definition: Def) -> Value:
        kind, node, path = definition.kind, definition.node, definition.path
        if kind == "param":
            return self._param(name.value, node, path)
        if kind == "assign":
            return self.value(node, path)  # type: ignore[arg-type]
        if kind == "aug":
            inner = self.value(node, path)  # type: ignore[arg-type]
            return (
                Value(TENSOR, inner.origins)
                if inner.kind == TENSOR
                else Value(UNKNOWN, inner.origins)
            )
        if kind == "elem":  # `a, b = value`: parts of a tensor (structure) are tensors
            if self._annotated_container(node, path, definition.element):
                return UNK
            inner = self.value(node, path)  # type: ignore[arg-type]
            return Value(TENSOR if inner.kind == TENSOR else UNKNOWN, inner.origins)
        if kind in ("for", "for-elem"):
            return self._loop_target(node, path, kind == "for")  # type: ignore[arg-type]
        if kind == "python":
            return PY
        return UNK

    def _annotated_container(
        self,
        value: cst.CSTNode | None,
        path: Sequence[cst.CSTNode],
        element: tuple[int, int] | None,
    ) -> bool:
        """`a, b = inputs` where every parameter `inputs` may be is annotated as a tuple whose
        element there is a container (`Tuple[Dict[str, tf.Tensor], tf.Tensor]`: `a` is a
        dict): a Python structure, though a Keras `call` input is taken for a tensor."""
        if element is None or type(value) is not cst.Name:
            return False
        defs = self.name_defs(value, path)  # type: ignore[arg-type]
        if not defs:
            return False
        for definition in defs:
            annotation = getattr(definition.node, "annotation", None)
            if definition.kind != "param" or annotation is None:
                return False
            part = tuple_element_annotation(annotation.annotation, *element)
            if part is None or not container_annotation(part):
                return False
        return True

    def _self_attribute(self, expr: cst.Attribute, path: Sequence[cst.CSTNode]) -> Value:
        """`self.x` in a method: what the class's methods assign to it. A `None` among them
        is left out: `if self.bias:` fails whenever the attribute holds its weight."""
        index = next(
            (i for i in range(len(path) - 1, -1, -1) if type(path[i]) is cst.ClassDef), None
        )
        if index is None or index + 2 >= len(path) or type(path[index + 2]) is not cst.FunctionDef:
            return UNK
        cls = path[index]
        attr = expr.attr.value
        if not assigned_only_plainly(cls, attr):  # type: ignore[arg-type]
            return UNK
        found = [
            self.value(value, value_path)
            for assigned, value_path in self_assignments(cls, attr, path[:index])  # type: ignore[arg-type]
            for value in _unless_none(assigned)
        ]
        return join(found) if found else UNK

    def _param(self, name: str, param: cst.CSTNode | None, base: Sequence[cst.CSTNode]) -> Value:
        func = base[-1]  # a param's path ends at its function
        model = self.model
        if model.is_loop_body(func):  # type: ignore[attr-defined]
            return Value(TENSOR, frozenset({"loop"}))
        context = model.function_context(func)  # type: ignore[attr-defined]
        params = func.params
        if (
            type(func) is cst.FunctionDef
            and params.params
            and params.params[0] is param
            and name in ("self", "cls")
        ):
            return PY
        if context is None:
            return UNK
        if _python_annotated(param) and name not in context.tensor_params:
            # `size: int`: a Python value, baked into each trace (a new value retraces, as
            # any Python argument of a tf.function does), never a tensor XLA must fold.
            return PY
        if not context.root or (
            not context.tensor_params and id(func) in self._called_only_in_graph
        ):
            return self._helper_param(func, name)
        if name in context.tensor_params:
            return Value(TENSOR, frozenset({"param"}) | self._layer_input_shapes(func, name))
        return Value(UNKNOWN, frozenset({"param"}))

    def _helper_param(self, func: cst.CSTNode, name: str) -> Value:
        """A helper's parameter: what the module's graph code passes to it (unknown where
        no call is seen; with `received`, for a top-level function only other files' graph
        code calls, what their "graph" records say each call passes). Where every call leaves
        it out, it is its default's value (`training=False`: a Python flag on every path)."""
        if type(func) is not cst.FunctionDef:
            return UNK
        sites = self.helper_sites.get(id(func))
        if not sites:
            return self._received_param(func, name) if self.received else UNK
        found = []
        defaulted = True  # no call passes it, nor spreads `*args`/`**kwargs` that might
        for call, path, bound in sites:
            if any(arg.star for arg in call.args):
                defaulted = False
            for param, arg in bind(func, call, bound):  # type: ignore[arg-type]
                if param == name:
                    found.append(self.value(arg, path))
        if found:
            return join(found)
        default = next((p.default for p in _every_param(func) if p.name.value == name), None)
        if defaulted and default is not None:
            return self.value(default, self.model.scope_path(func)[:-1])  # type: ignore[attr-defined]
        return UNK

    def _received_param(self, func: cst.FunctionDef, name: str) -> Value:
        """What the "graph" records of a top-level function (calls from graph code of other
        files) say its parameter `name` gets: a tensor, a Python value, or the default where
        a call leaves it out; unknown where any record carries no arguments (a callback, a
        record of an older version) or a star argument may fill it."""
        facts = self._received_facts(func, name)
        if facts is None:
            return UNK
        found = []
        for fact in facts:
            if isinstance(fact, cst.BaseExpression):  # the default: no call passes it
                found.append(self.value(fact, (self.model.module,)))  # type: ignore[attr-defined]
            elif fact.startswith("tensor"):
                found.append(Value(TENSOR, frozenset()))
            elif fact == "py" or fact.startswith(("dtype:", LITERAL_FACT)):
                found.append(PY)
            else:
                return UNK
        return join(found)

    def _received_facts(
        self, func: cst.FunctionDef, name: str
    ) -> list[str | cst.BaseExpression] | None:
        """Per "graph" record of the top-level `func`, the fact it gives for the parameter
        `name` (the default's expression where the call leaves it out); None where there is
        none, or a record carries no arguments, or a star argument may fill it."""
        model = self.model
        if not any(stmt is func for stmt in model.module.body):  # type: ignore[attr-defined]
            return None
        wanted = func.name.value
        records = [r for r in model.records("graph") if r.function == wanted]  # type: ignore[attr-defined]
        if not records:
            return None
        signature = Signature.of(func)
        out: list[str | cst.BaseExpression] = []
        for record in records:
            args = decode_arguments(record.status) if record.status else None
            if args is None:
                return None
            bound = bind_arguments(signature, args)
            if name in bound.arguments:
                out.append(bound.arguments[name])
            elif name in bound.defaulted:
                out.append(bound.defaulted[name])
            else:
                return None
        return out

    def argument_kinds(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> list[Argument]:
        """What each argument of `call` is, for a "graph" record (tf_records.py's facts,
        without dtypes): a tensor ("tensors" where it may be a structure of them: the whole
        input of a graph root), a Python value, or unknown."""
        out: list[Argument] = []
        for keyword, expr in call_arguments(call):
            if keyword in (STARRED, DOUBLE_STARRED):
                out.append((keyword, UNKNOWN_FACT))
                continue
            kind = self.value(expr, path).kind
            literal = self.model.graph_arguments.literal(expr, path)  # type: ignore[attr-defined]
            if literal is not None:
                fact = literal_fact(literal)  # one literal on every graph path: "py=False"
            elif kind == TENSOR:
                fact = "tensors" if self.whole_input(expr, path) else "tensor"
            else:
                fact = "py" if kind == PYTHON else UNKNOWN_FACT
            out.append((keyword, fact))
        return out

    def whole_input(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0) -> bool:
        """Whether `expr`, a tensor to the model, may be a structure of tensors instead (a
        list, tuple or dict, for which `tf.is_tensor` is False): the whole input of a graph
        root (a Keras `call`'s inputs, a `tf.function`'s argument), directly, through a plain
        alias, or passed whole to a helper, by this file or (its record says "tensors") by
        another. An element of it (`inputs[1]`, `a, b = inputs`) or an op's result is one
        tensor."""
        if type(expr) is not cst.Name:
            return False
        defs = self.name_defs(expr, path)  # type: ignore[arg-type]
        if not defs or depth > 4:
            return True
        for definition in defs:
            if definition.kind == "assign":
                if self.whole_input(definition.node, definition.path, depth + 1):  # type: ignore[arg-type]
                    return True
            elif definition.kind == "param" and self._whole_param(
                definition.path[-1], expr.value, depth
            ):
                return True
        return False

    def _whole_param(self, func: cst.CSTNode, name: str, depth: int) -> bool:
        context = self.model.function_context(func)  # type: ignore[attr-defined]
        if context is None or context.root:
            return True
        sites = self.helper_sites.get(id(func))
        if not sites:
            if type(func) is not cst.FunctionDef:
                return True
            facts = self._received_facts(func, name)
            return facts is None or "tensors" in facts
        for call, path, bound in sites:
            for param, arg in bind(func, call, bound):  # type: ignore[arg-type]
                if param == name and self.whole_input(arg, path, depth + 1):
                    return True
        return False

    def passed_to_helper(self, func: cst.CSTNode, name: str) -> list[cst.BaseExpression] | None:
        """What the module's graph code passes for the parameter `name` of the helper
        `func`, at every call seen (a call that leaves it out passes nothing); None where
        no call is seen, or one spreads `*args`/`**kwargs` (what it passes is not known)."""
        sites = self.helper_sites.get(id(func))
        if not sites or type(func) is not cst.FunctionDef:
            return None
        found = []
        for call, _path, bound in sites:
            if any(arg.star for arg in call.args):
                return None
            found += [arg for param, arg in bind(func, call, bound) if param == name]
        return found

    # ----- what graph code prints, logs and keeps ------------------------------------------

    def shows_tensor(self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> bool:
        """`expr` is a tensor, or text made from one: `str(t)`, `"a" + str(t)`, `f"{t}"`.
        Written out while tracing, it shows the symbolic tensor, not its value."""
        kind = type(expr)
        if kind is cst.FormattedString:
            return any(
                type(part) is cst.FormattedStringExpression
                and self.shows_tensor(part.expression, path)  # type: ignore[attr-defined]
                for part in expr.parts  # type: ignore[attr-defined]
            )
        if kind is cst.BinaryOperation:
            return self.shows_tensor(expr.left, path) or self.shows_tensor(expr.right, path)  # type: ignore[attr-defined]
        if (
            kind is cst.Call
            and type(expr.func) is cst.Name  # type: ignore[attr-defined]
            and expr.func.value in ("str", "repr")  # type: ignore[attr-defined]
            and len(expr.args) == 1  # type: ignore[attr-defined]
        ):
            return self.shows_tensor(expr.args[0].value, path)  # type: ignore[attr-defined]
        if kind in (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float):
            return False
        return self.value(expr, path).kind == TENSOR

    def formats_tensor(self, string: cst.FormattedString, path: Sequence[cst.CSTNode]) -> bool:
        """An f-string with a field whose value is a tensor."""
        return any(
            self.value(part.expression, path).kind == TENSOR
            for part in string.parts
            if type(part) is cst.FormattedStringExpression
        )

    def one_tensor(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0) -> bool:
        """`expr` is one tensor, not a list or tuple of them: `value` calls both "tensor",
        and only the first fails to iterate in graph code (`a, b = tf.split(x, 2)` is
        fine)."""
        if depth > 8 or self.value(expr, path).kind != TENSOR:
            return False
        kind = type(expr)
        if kind is cst.Subscript:
            return self.one_tensor(expr.value, path, depth + 1)  # type: ignore[attr-defined]
        if kind is cst.UnaryOperation:
            return self.one_tensor(expr.expression, path, depth + 1)  # type: ignore[attr-defined]
        if kind is cst.BinaryOperation:
            # An operator with a tensor operand makes a tensor (even `t + [1, 2]`).
            sides = (expr.left, expr.right)  # type: ignore[attr-defined]
            return any(self.one_tensor(side, path, depth + 1) for side in sides)
        if kind is cst.Call:
            names = self.names.qualified_names(expr.func, path)  # type: ignore[attr-defined]
            return bool(names) and all(single_output(n) for n in names)
        if kind is not cst.Name:
            return False
        defs = self.name_defs(expr, path)  # type: ignore[arg-type]
        if not defs:
            return False
        # A parameter is not claimed: an `input_signature` entry, a Keras input or a loss's
        # targets may be a structure of tensors (seed_rl's `Unroll(*data)` spreads one).
        return all(
            d.kind in ("assign", "aug") and self.one_tensor(d.node, d.path, depth + 1)  # type: ignore[arg-type]
            for d in defs
        )

    def tensor_list(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        """`expr` is a Python list of tensors made by a TF function (`tf.unstack(x)`, or a
        name every reaching binding of which is one): Python iterates it, in graph code too."""
        if type(expr) is cst.Call:
            names = self.names.qualified_names(expr.func, path)  # type: ignore[attr-defined]
            return bool(names) and all(list_output(n) for n in names)
        if type(expr) is not cst.Name:
            return False
        defs = self.name_defs(expr, path)
        return bool(defs) and all(
            d.kind == "assign"
            and type(d.node) is cst.Call
            and type(d.path[-1]) is cst.Assign
            and all(type(t.target) is cst.Name for t in d.path[-1].targets)  # type: ignore[attr-defined]
            and self.tensor_list(d.node, d.path)
            for d in defs
        )

    def tensor_like(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], root: bool) -> bool:
        """A tensor, or (`root`: in the function TF calls) a raw argument of the traced
        function: a tensor or a retrace key."""
        value = self.value(expr, path)
        return value.kind == TENSOR or (root and value.origins == {"param"})

    def new_variable(self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> bool:
        """`expr` is `tf.Variable(...)`, or a name bound only to such calls."""
        candidates: list[tuple[cst.CSTNode, object]] = [(expr, path)]
        if type(expr) is cst.Name:
            assigned = self.assigned_values(expr, path)
            if not assigned:
                return False
            candidates = list(assigned)  # type: ignore[arg-type]
        for value, here in candidates:
            if type(value) is not cst.Call:
                return False
            if not self.names.resolves_to(value.func, here, VARIABLE_CLASSES):  # type: ignore[arg-type]
                return False
        return True

    def outer_object(self, name: cst.Name, path: Sequence[cst.CSTNode]) -> str | None:
        """For `name.attr` in graph code (`path` ends at it), `name` not `self`: a
        description of the object when it comes from outside the traced function (a module
        global that is no import, or a Python argument of the function TensorFlow traces);
        None otherwise."""
        if name.value in ("self", "cls"):
            return None
        defs = self.name_defs(name, path)
        if defs is not None:
            if not defs or any(d.kind != "param" for d in defs):
                return None
            owner = self.model.function_context(defs[0].path[-1])
            if owner is None or not owner.root or name.value in owner.tensor_params:
                return None
            return f"`{name.value}`, an argument of the traced function"
        found = self.names.lookup_with_path(name.value, path)
        if found is None or type(found[1][-1]) is not cst.Module:
            return None
        if not found[0] or any(b.kind != "assign" for b in found[0]):
            return None
        return f"the module's `{name.value}`"

    def staged_loop(self, path: Sequence[cst.CSTNode]) -> cst.For | cst.While | None:
        """The innermost loop around the end of `path`, in its function, when autograph
        stages it: a `for` over a tensor (`tf.range(n)`) or a `while` on a tensor."""
        for index in range(len(path) - 1, 0, -1):
            loop = path[index]
            kind = type(loop)
            if kind in (cst.FunctionDef, cst.Lambda):
                return None
            if kind in (cst.For, cst.While) and path[index + 1] is loop.body:  # type: ignore[attr-defined]
                return loop if self.on_tensor(loop, path[:index]) else None  # type: ignore[return-value]
        return None

    def on_tensor(self, loop: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        """`loop` (`path` leads to it) is a `for` over a tensor or a `while` whose test is
        one: autograph stages it in graph code."""
        if type(loop) is cst.For:
            return self.value(loop.iter, path).kind == TENSOR  # type: ignore[attr-defined]
        return type(loop) is cst.While and self.value(loop.test, path).kind == TENSOR  # type: ignore[attr-defined]

    def tensors_read(self, node: cst.CSTNode, path: Sequence[cst.CSTNode]) -> list[str] | None:
        """The names of the tensors `node` reads, in order; None when it also reads a local
        value of unknown kind (a Python int, `self`). Only what the model knows is a tensor:
        a raw argument of the traced function may be a Python value."""
        tensors: list[str] = []
        stack: list[cst.CSTNode] = [node]
        while stack:
            name = stack.pop()
            if type(name) is cst.Attribute:
                stack.append(name.value)  # `obj.attr`: `attr` is no name of the scope
                continue
            if type(name) is not cst.Name:
                stack.extend(iter_children(name))
                continue
            if name.value in tensors:
                continue
            if self.value(name, path).kind == TENSOR:
                tensors.append(name.value)
                continue
            found = self.names.lookup_with_path(name.value, path)
            if found is not None and type(found[1][-1]) is not cst.Module:
                return None
        return tensors

    def off_by_default(self, path: Sequence[cst.CSTNode]) -> bool:
        """The end of `path` is under `if verbose:`, a parameter of the helper that defaults
        to off (False, None, 0) and that no call from graph code seen in the module turns
        on."""
        for index in range(len(path) - 2, -1, -1):
            node = path[index]
            if type(node) in (cst.FunctionDef, cst.Lambda):
                return False
            if type(node) is not cst.If or path[index + 1] is not node.body:
                continue
            test = node.test
            func = next((n for n in reversed(path[:index]) if type(n) is cst.FunctionDef), None)
            if type(test) is not cst.Name or func is None:
                continue
            param = next(
                (
                    p
                    for p in (*func.params.params, *func.params.kwonly_params)  # type: ignore[attr-defined]
                    if p.name.value == test.value
                ),
                None,
            )
            if param is None or not _off(param.default):
                continue
            passed = self.passed_to_helper(func, test.value)
            if passed is not None and all(_off(arg) for arg in passed):
                return True
        return False

    def _layer_input_shapes(self, func: cst.CSTNode, name: str) -> frozenset[str]:
        """Data-dependent shapes that reach a Keras layer's `call` from graph code of this
        module that creates and calls the layer at once: `Translation()([patches, d])`."""
        found = self.model.keras_class_of(func)  # type: ignore[attr-defined]
        if found is None or found[1] != "call" or type(func) is not cst.FunctionDef:
            return frozenset()
        origins: set[str] = set()
        for call, path in self._layer_calls.get(id(found[0].node), ()):
            for param, arg in bind(func, call, 1):
                if param == name:
                    origins |= _shape_origins(self.value(arg, path))
        return frozenset(origins)

    @cached_property
    def _layer_calls(self) -> dict[int, list[tuple[cst.Call, Sequence[cst.CSTNode]]]]:
        """Per local Keras class: `Cls(...)(inputs)` calls in graph code, with their paths."""
        model = self.model
        scan = model.scan  # type: ignore[attr-defined]
        classes = scan.keras_classes
        found: dict[int, list[tuple[cst.Call, Sequence[cst.CSTNode]]]] = {}
        if not classes:
            return found
        for key in model.contexts:  # type: ignore[attr-defined]
            for call, path in scan.calls.get(key, ()):
                if len(path) < 2 or type(call.func) is not cst.Name:
                    continue
                outer = path[-2]
                if type(outer) is not cst.Call or outer.func is not call:  # type: ignore[attr-defined]
                    continue
                bindings = self.names.lookup(call.func.value, path)
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    cls = bindings[0].node
                    if id(cls) in classes:
                        found.setdefault(id(cls), []).append((outer, path[:-1]))  # type: ignore[arg-type]
        return found

    def _helper_result(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> Value | None:
        """The data-dependent shapes a module helper called from graph code returns (joined
        over its returns and its callers: flow-insensitive); None if not such a helper."""
        model = self.model
        target = model.resolve_function(call.func, path)  # type: ignore[attr-defined]
        if target is None or type(target[0]) is not cst.FunctionDef:
            return None
        func = target[0]
        if model.function_context(func) is None:  # type: ignore[attr-defined]
            return None
        base = model.scope_path(func)[:-1]  # type: ignore[attr-defined]
        origins: set[str] = set()
        for value, here in _returns(func, base):
            origins |= _shape_origins(self.value(value, here))
        return Value(UNKNOWN, frozenset(origins)) if origins else None

    @cached_property
    def helper_sites(self) -> dict[int, list[tuple[cst.Call, Sequence[cst.CSTNode], int]]]:
        """Per function, the calls this module's graph code makes of it, with their paths and
        the receivers each binds (1 for `self.f(...)`)."""
        model = self.model
        scan = model.scan  # type: ignore[attr-defined]
        sites: dict[int, list[tuple[cst.Call, Sequence[cst.CSTNode], int]]] = {}
        for key in model.contexts:  # type: ignore[attr-defined]
            for call, path in scan.calls.get(key, ()):
                func = self._called_def(call, path)
                if func is not None:
                    bound = (
                        receivers(func, True)  # `self.f(...)`: 0 for a staticmethod
                        if type(call.func) is cst.Attribute and type(func) is cst.FunctionDef
                        else 0
                    )
                    sites.setdefault(id(func), []).append((call, path, bound))
        return sites

    def _called_def(
        self, call: cst.Call, path: Sequence[cst.CSTNode]
    ) -> cst.FunctionDef | cst.Lambda | None:
        """The def a call of the module runs: what the model resolves, or a method that
        `self.f(...)` / `cls.f(...)` inherits from a class of the module."""
        target = self.model.resolve_function(call.func, path)  # type: ignore[attr-defined]
        if target is not None:
            return target[0]
        func = call.func
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
            return None
        if func.value.value not in ("self", "cls"):
            return None
        cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
        return self._inherited(cls, func.attr.value, path) if cls is not None else None

    def _inherited(
        self, cls: cst.ClassDef, name: str, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> cst.FunctionDef | None:
        """The method `name` of the first base of `cls` (a class of the module) that
        defines it, a few levels up."""
        if depth >= 3:
            return None
        for node in self.names.module_bases(cls, path):
            for stmt in node.body.body:  # type: ignore[attr-defined]
                if type(stmt) is cst.FunctionDef and stmt.name.value == name:
                    return stmt
            found = self._inherited(node, name, path, depth + 1)
            if found is not None:
                return found
        return None

    @cached_property
    def _called_only_in_graph(self) -> frozenset[int]:
        """Decorated `tf.function`s that the module calls only from its graph code and names
        nowhere else (its source has the name once per such call, besides the `def`): TF
        traces a nested call into the caller's graph, so the parameters hold what the
        callers pass (a Python int stays a constant), as a helper's do. A call from another
        module is not seen."""
        model = self.model
        scan = model.scan  # type: ignore[attr-defined]
        source = getattr(model, "source", None)
        if not source:
            return frozenset()
        decorated = {
            id(app.func): app.func
            for app, _path in scan.applications
            if type(app.func) is cst.FunctionDef
            and any(d.decorator is app.node for d in app.func.decorators)
        }
        if not decorated:
            return frozenset()
        graph = model.contexts  # type: ignore[attr-defined]
        calls: dict[int, int] = {}
        eager: set[int] = set()
        for key, found in scan.calls.items():
            for call, path in found:
                target = self._called_def(call, path)
                if target is None or id(target) not in decorated:
                    continue
                calls[id(target)] = calls.get(id(target), 0) + 1
                if key not in graph:
                    eager.add(id(target))
        out = set()
        for key, count in calls.items():
            name = decorated[key].name.value
            if key not in eager and len(re.findall(rf"\b{name}\b", source)) == count + 1:
                out.add(key)
        return frozenset(out)

    def _loop_target(
        self, iterable: cst.CSTNode, path: Sequence[cst.CSTNode], whole: bool
    ) -> Value:
        if type(iterable) is cst.Call:
            names = self.names.qualified_names(iterable.func, path)  # type: ignore[attr-defined]
            if names and names <= {"builtins.range"}:
                args = [self.value(a.value, path) for a in iterable.args]  # type: ignore[attr-defined]
                if all(a.kind == PYTHON for a in args):
                    return PY
                if any(a.kind == TENSOR for a in args):
                    return Value(TENSOR, frozenset({"loop"}))  # autograph makes it a tf loop
                return UNK
            if names and names <= {"tensorflow.range"}:
                return Value(TENSOR, frozenset({"loop"}))
        if whole and self.value(iterable, path).kind == TENSOR:
            return Value(TENSOR, frozenset({"loop"}))
        return UNK

    def _call(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> Value:
        func = call.func
        kind = type(func)
        names = (
            canonical(self.names.qualified_names(func, path))
            if kind in (cst.Name, cst.Attribute)
            else frozenset()
        )
        if names and all(n.startswith("tensorflow.") for n in names):
            if self._in_eager_scope(path):
                return UNK  # an eager tensor, with a value, even inside graph code
            return self._tf_call(call, names, path)
        if names and names <= _PY_BUILTINS:
            return PY
        if kind is cst.Name or (kind is cst.Attribute and type(func.value) is cst.Name):  # type: ignore[attr-defined]
            result = self._helper_result(call, path)
            if result is not None:
                return result
        if names and names <= _NUMERIC_BUILTINS:
            value = combine(self.value(a.value, path) for a in call.args)
            return value if value.kind == PYTHON else Value(UNKNOWN, value.origins)
        if (
            kind is cst.Attribute
            and type(func.value) is cst.Name  # type: ignore[attr-defined]
            and func.value.value == "self"  # type: ignore[attr-defined]
            and func.attr.value in WEIGHT_MAKERS  # type: ignore[attr-defined]
        ):
            return Value(TENSOR, frozenset({"variable"}))  # a Keras layer's weight
        if kind is cst.Attribute and not names - {""}:
            receiver = self.value(func.value, path)  # type: ignore[attr-defined]
            if receiver.kind == TENSOR:
                method = func.attr.value  # type: ignore[attr-defined]
                if method in ("get_shape", "numpy", "__len__"):
                    return PY
                if method in _TENSOR_METHODS:
                    return combine([receiver, *(self.value(a.value, path) for a in call.args)])
        return UNK

    def eager_variable_read(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        """`expr` is a `tf.Variable` read inside `with tf.init_scope():`: variables made in
        a tf.function are lifted out of its graph, so there the read is eager, with a value
        (a graph op's result stays symbolic even there)."""
        return self.value(expr, path).origins == {"variable"} and self._in_eager_scope(path)

    def _in_eager_scope(self, path: Sequence[cst.CSTNode]) -> bool:
        """Inside `with tf.init_scope():` (or TF's `context.eager_mode()`) in the innermost
        function: ops there run eagerly, lifted out of the graph being built."""
        for index in range(len(path) - 1, -1, -1):
            node = path[index]
            kind = type(node)
            if kind is cst.FunctionDef or kind is cst.Lambda:
                return False
            if kind is cst.With:
                for item in node.items:  # type: ignore[attr-defined]
                    manager = item.item
                    if type(manager) is cst.Call and (
                        self.names.qualified_names(manager.func, path[:index]) & EAGER_SCOPES
                    ):
                        return True
        return False

    def _growing_slice(self, expr: cst.Subscript, path: Sequence[cst.CSTNode]) -> str | None:
        """The dimension ("*" when not known) a slice whose size changes with a loop
        variable makes dynamic (bounded)."""
        for dim, element in enumerate(expr.slice):
            piece = element.slice
            if type(piece) is not cst.Slice or fixed_width(piece):
                continue
            for bound in (piece.lower, piece.upper):
                if bound is not None:
                    value = self.value(bound, path)
                    if value.kind == TENSOR and value.origins & _VALUE_LOOP_ORIGINS:
                        before = expr.slice[:dim]
                        known = all(
                            type(e.slice) is cst.Slice
                            or (type(e.slice) is cst.Index and type(e.slice.value) is cst.Integer)
                            for e in before
                        )
                        return str(dim) if known else "*"
        return None

    def _tf_call(self, call: cst.Call, names: frozenset[str], path: Sequence[cst.CSTNode]) -> Value:
        if names <= {"tensorflow.Variable"}:
            return Value(TENSOR, frozenset({"variable"}))
        if names <= SHAPE_QUERIES:
            # XLA compiles per static shape: sizes are constants, unless the shape itself
            # depends on the data.
            shaped = [self.value(a.value, path) for a in call.args[:1]]
            dims = [
                o.split(":", 1)[1]
                for o in (shaped[0].origins if shaped else ())
                if o.startswith(DYNAMIC_SHAPE)
            ]
            if not dims or names <= {"tensorflow.rank"}:
                return Value(TENSOR)
            if names <= {"tensorflow.shape"}:
                return Value(TENSOR, frozenset(f"{DYNAMIC_SIZE}:{d}" for d in dims))
            return Value(TENSOR, frozenset({DYNAMIC_SIZE}))
        if names <= STATEFUL_RNG:
            return Value(TENSOR, frozenset({"rng"}))
        # Every meaning decides, not the first a set gives: unknown before a Python value.
        if any(
            name.startswith("tensorflow.python.") and not name.startswith(_INTERNAL_OPS)
            for name in names
        ):
            # TF's internals (eager.context, framework.tensor_util, util.nest, ...) are
            # mostly Python helpers: `context.executing_eagerly()` and
            # `tensor_util.is_tf_type(x)` return bools (found in TF's own sources).
            return UNK
        for name in names:
            rest = name[len("tensorflow.") :]
            if name in NON_TENSOR_CALLS or rest.split(".")[-1][:1].isupper():
                return PY
            if any(rest == ns or rest.startswith(ns + ".") for ns in NON_TENSOR_NAMESPACES):
                return PY
        args = [self.value(a.value, path) for a in call.args if type(a.value) is not cst.Lambda]
        origins = combine(args).origins if args else frozenset()
        if names & _QUOTIENT_OPS:
            origins = _divided(Value(TENSOR, origins)).origins
        if names <= _REDUCTIONS and len(call.args) == 1:
            # A reduction over every axis is a scalar: its shape is static again.
            origins = frozenset(
                o for o in origins if not o.startswith(DYNAMIC_SHAPE) and "@" not in o
            )
        elif _dynamic_output(names, call):
            if any(n.startswith("tensorflow.ragged.") for n in names):
                self.sources[id(call)] = call
                origins = origins | {f"ragged@{id(call)}", f"{DYNAMIC_SHAPE}:*"}
            else:
                origins = origins | {f"{DYNAMIC_SHAPE}:0"}  # the data-dependent count
        return Value(TENSOR, origins)

    def assigned_values(
        self, name: cst.Name, path: Sequence[cst.CSTNode]
    ) -> list[tuple[cst.CSTNode, Sequence[cst.CSTNode]]] | None:
        """Every value `name` may hold here, when all its bindings are plain assignments.

        An assignment whose value contains this very use (`x = tf.cast(x, D)`) cannot be the
        one the use reads (outside loops), so it is left out.
        """
        enclosing = {id(node) for node in path}
        defs = self.name_defs(name, path)
        if defs is not None:
            if all(d.kind == "assign" for d in defs):
                found = [(d.node, d.path) for d in defs if id(d.node) not in enclosing]
                return found or None  # type: ignore[return-value]
            return None
        found = self.names.lookup_with_path(name.value, path)
        if found is None:
            return None
        bindings, scope_path = found
        if all(b.kind == "assign" and b.node is not None for b in bindings):
            values = [(b.node, scope_path) for b in bindings if id(b.node) not in enclosing]
            return values or None  # type: ignore[return-value]
        return None


def _off(node: cst.CSTNode | None) -> bool:
    """`False`, `None` or `0` as written."""
    if type(node) is cst.Name:
        return node.value in ("False", "None")
    return type(node) is cst.Integer and node.value == "0"


_TRACE_WORDS = ("trac", "compil", "build")


def says_traced(args: Sequence[cst.Arg]) -> bool:
    """The text written out says it is about tracing ("tracing f for shape ..."): the
    author knows it runs once per trace."""
    for arg in args:
        stack: list[cst.CSTNode] = [arg.value]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.SimpleString or kind is cst.FormattedStringText:
                text = node.value.lower()  # type: ignore[attr-defined]
            else:
                if kind in (cst.FormattedString, cst.ConcatenatedString, cst.BinaryOperation):
                    stack.extend(iter_children(node))
                continue
            if any(word in text for word in _TRACE_WORDS):
                return True
    return False
