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
constants. Everything is flow-insensitive: a name's value joins all its assignments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.engine.walker import iter_children
from jitlint.model.domain.names import Names
from jitlint.model.tf.api import (
    NON_TENSOR_CALLS,
    NON_TENSOR_NAMESPACES,
    SHAPE_QUERIES,
    STATEFUL_RNG,
    canonical,
)

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


@dataclass(frozen=True)
class Def:
    kind: str  # "param", "assign", "for", "aug", "python", "other"
    node: cst.CSTNode | None
    path: tuple[cst.CSTNode, ...]


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
        element_kind = {"for": "for-elem", "assign": "elem"}.get(definition.kind, "other")
        for element in target.elements:  # type: ignore[attr-defined]
            _bind(defs, element.value, Def(element_kind, definition.node, definition.path))
    elif kind is cst.StarredElement:
        _bind(defs, target.value, Def("other", None, ()))  # type: ignore[attr-defined]


class TfValues:
    """Abstract values of expressions; `model` supplies graph contexts and loop bodies."""

    def __init__(self, names: Names, model: object) -> None:
        self.names = names
        self.model = model
        self._defs: dict[int, dict[str, list[Def]]] = {}
        self._memo: dict[int, Value] = {}
        self._dtype_memo: dict[int, str | None] = {}

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
        return self.defs(scope, scope_path[:-2]).get(name.value)  # type: ignore[arg-type]

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
            return combine(parts)
        if kind is cst.BinaryOperation:
            return combine([self.value(expr.left, path), self.value(expr.right, path)])  # type: ignore[attr-defined]
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
            inner = self.value(node, path)  # type: ignore[arg-type]
            return Value(TENSOR if inner.kind == TENSOR else UNKNOWN, inner.origins)
        if kind in ("for", "for-elem"):
            return self._loop_target(node, path, kind == "for")  # type: ignore[arg-type]
        if kind == "python":
            return PY
        return UNK

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
        if context is None or not context.root:
            return UNK
        if name in context.tensor_params:
            return Value(TENSOR, frozenset({"param"}))
        return Value(UNKNOWN, frozenset({"param"}))

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
        if names and names <= _NUMERIC_BUILTINS:
            value = combine(self.value(a.value, path) for a in call.args)
            return value if value.kind == PYTHON else Value(UNKNOWN, value.origins)
        if kind is cst.Attribute and not names - {""}:
            receiver = self.value(func.value, path)  # type: ignore[attr-defined]
            if receiver.kind == TENSOR:
                method = func.attr.value  # type: ignore[attr-defined]
                if method in ("get_shape", "numpy", "__len__"):
                    return PY
                if method in _TENSOR_METHODS:
                    return combine([receiver, *(self.value(a.value, path) for a in call.args)])
        return UNK

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

    def _tf_call(self, call: cst.Call, names: frozenset[str], path: Sequence[cst.CSTNode]) -> Value:
        if names <= {"tensorflow.Variable"}:
            return Value(TENSOR, frozenset({"variable"}))
        if names <= SHAPE_QUERIES:
            return Value(TENSOR)
        if names <= STATEFUL_RNG:
            return Value(TENSOR, frozenset({"rng"}))
        for name in names:
            if name.startswith("tensorflow.python.") and not name.startswith(_INTERNAL_OPS):
                # TF's internals (eager.context, framework.tensor_util, util.nest, ...) are
                # mostly Python helpers: `context.executing_eagerly()` and
                # `tensor_util.is_tf_type(x)` return bools (found in TF's own sources).
                return UNK
            rest = name[len("tensorflow.") :]
            if name in NON_TENSOR_CALLS or rest.split(".")[-1][:1].isupper():
                return PY
            if any(rest == ns or rest.startswith(ns + ".") for ns in NON_TENSOR_NAMESPACES):
                return PY
        args = [self.value(a.value, path) for a in call.args if type(a.value) is not cst.Lambda]
        return Value(TENSOR, combine(args).origins if args else frozenset())

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
