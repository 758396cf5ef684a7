"""How the Analyzer values expressions: names, calls, operators, displays, comprehensions.

A mixin of `Analyzer` (analyzer.py), which provides the environment (`env`), binding,
narrowing and the tracing model's callbacks (`classify_call`, `attribute`, `lookup_free`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.model.domain.values import (
    MISSING,
    PYTHON_SET,
    PYTREE,
    STATIC,
    TRACED,
    Array,
    Dict,
    Foreign,
    FunctionRef,
    Object,
    S,
    Scalar,
    Seq,
    U,
    Value,
    combine,
    constant,
    container,
    first_traced,
    join,
    plain_python_object,
    traced,
)
from jitlint.python.walker import iter_children

if TYPE_CHECKING:
    pass

_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_BOOL_OPS = {cst.BitAnd, cst.BitOr, cst.BitXor}
_DISPLAY_TYPES: dict[type, str] = {
    cst.Tuple: "tuple",
    cst.List: "list",
    cst.Set: "set",
    cst.Dict: "dict",
}


class Expressions:
    """Expression handlers; `eval` dispatches on the node type."""

    def eval(self, node: cst.CSTNode) -> Value:
        handler = _EXPRESSIONS.get(type(node))
        value = handler(self, node) if handler is not None else self._generic(node)
        key = id(node)
        before = self.values.get(key)
        if before is not None and before.traced and not value.traced:
            # Evaluated again (a loop's second pass): it was a tracer on an earlier pass,
            # which is the value rules must see.
            self.sticky[key] = before
        self.values[key] = value
        return value

    def _generic(self, node: cst.CSTNode) -> Value:
        for child in iter_children(node):
            if isinstance(child, cst.BaseExpression):
                self.eval(child)
            else:
                self._generic(child)
        return U

    def _name(self, node: Any) -> Value:
        name = node.value
        found = self.env.get(name)
        if found is not None:
            return found
        if name in self.local_names:
            return U  # bound in this body, but not on the path analysed so far
        cached = self._free.get(name)
        if cached is None:
            cached = self._free[name] = self.lookup_free(name)
        return cached

    def _attribute(self, node: Any) -> Value:
        base = self.eval(node.value)
        return self.attribute(self, node, base)

    def _call(self, node: Any) -> Value:
        for arg in node.args:
            self.eval(arg.value)
        func = node.func
        if type(func) is cst.Attribute:
            self.eval(func.value)
        else:
            self.eval(func)
        return self.classify_call(self, node)

    def _subscript(self, node: Any) -> Value:
        base = self.eval(node.value)
        indices = []
        for element in node.slice:
            inner = element.slice
            if type(inner) is cst.Index:
                indices.append(self.eval(inner.value))
            else:
                for part in (inner.lower, inner.upper, inner.step):
                    if part is not None:
                        indices.append(self.eval(part))
        single = len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index
        if isinstance(base, Seq):
            index = indices[0] if single else None
            if (
                isinstance(index, Scalar)
                and isinstance(index.const, int)
                and base.items is not None
                and -len(base.items) <= index.const < len(base.items)
            ):
                return base.items[index.const]
            if single:
                return base.elem if first_traced(indices) is None else U
            return Seq(base.pytype, elem=base.elem) if base.pytype in ("list", "tuple") else U
        if isinstance(base, Dict):
            key = indices[0] if single else None
            if isinstance(key, Scalar) and key.known:
                return base.get(key.const)
            return base.elem if base.entries is None else U
        if isinstance(base, Array):
            if not base.jax:
                if all(i.kind == STATIC for i in indices):
                    return Array(jax=False)
                return U
            return Array(base.why, dtype=base.dtype, sure=base.sure)
        if isinstance(base, Scalar):
            return (
                Scalar("str")
                if base.pytype == "str" and all(i.kind == STATIC for i in indices)
                else U
            )
        if isinstance(base, (Object, Foreign)) and single and self.item is not None:
            return self.item(self, node, base, indices[0])  # `obj[i]` runs `__getitem__`
        if isinstance(base, Object):
            return U
        if base.kind == TRACED:
            return traced(base.why)
        if base.kind == PYTREE:
            if first_traced(indices) is not None:
                return traced(base.why, sure=False)
            return Value(PYTREE, base.why)
        if base.kind == STATIC and all(i.kind == STATIC for i in indices):
            return S
        return U

    def _binary(self, node: Any) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        op = type(node.operator)
        if op is cst.Modulo and type(node.left) in (cst.SimpleString, cst.ConcatenatedString):
            return U  # %-formatting: a string, or a conversion error
        if op in (cst.Add, cst.Multiply) and (
            _is_sequence(node.left, left) or _is_sequence(node.right, right)
        ):
            return _sequence_op(op, left, right)
        return self.operate(node.operator, left, right)

    def operate(self, operator: cst.CSTNode, left: Value, right: Value) -> Value:
        """`left <op> right` (also for augmented assignment)."""
        op = type(operator)
        if op in _AUGMENTED:
            op = _AUGMENTED[op]
        if isinstance(left, Scalar) and isinstance(right, Scalar):
            return _scalar_op(op, left, right)
        if op in (cst.Add, cst.Multiply) and (isinstance(left, Seq) or isinstance(right, Seq)):
            return _sequence_op(op, left, right)
        if op is cst.BitOr and isinstance(left, Dict) and isinstance(right, Dict):
            if left.entries is not None and right.entries is not None:
                return Dict({**left.entries, **right.entries})
            return Dict(elem=join(left.elem, right.elem))
        value = combine([left, right])
        if value.kind == TRACED and op in _BOOL_OPS and left.boolean and right.boolean:
            return traced(value.why, boolean=True)
        return value

    def _unary(self, node: Any) -> Value:
        inner = self.eval(node.expression)
        if type(node.operator) is cst.Not:
            return Scalar("bool") if inner.kind == STATIC else U
        if inner.traced:
            if isinstance(inner, (Seq, Dict, Object)):
                return U
            return traced(inner.why, boolean=inner.boolean and type(node.operator) is cst.BitInvert)
        if isinstance(inner, Scalar):
            if type(node.operator) is cst.Minus and inner.known and isinstance(inner.const, int):
                return constant(-inner.const)
            return Scalar(inner.pytype)
        return inner if inner.kind != STATIC or isinstance(inner, Array) else S

    def _boolean(self, node: Any) -> Value:
        left = self.eval(node.left)
        is_or = type(node.operator) is cst.Or
        decided = self.truth(node.left) if self.truth is not None else None
        if decided is not None and decided == is_or:
            # `grid is None and jnp.any(x)` given a grid: the right operand never runs, so
            # it is no value here (and no conversion of it is reached).
            return left
        # The right operand runs only when `and`'s left is true / `or`'s left is false.
        right = self._narrowed(node.left, type(node.operator) is cst.And, node.right)
        if left.kind == STATIC and right.kind == STATIC:
            if isinstance(left, Scalar) and left.known:
                try:
                    truth = bool(left.const)
                except Exception:
                    return S
                if truth == (type(node.operator) is cst.Or):
                    return left
                return right
            joined = join(left, right)
            return joined if joined.kind == STATIC else S
        if type(node.operator) is cst.And and left.kind == STATIC and right.kind == TRACED:
            # `ok and jnp.all(x)`: whenever the Python check passes, the value is the tracer
            # (a test of the same expression written inline is reported the same way).
            return right
        return U

    def _comparison(self, node: Any) -> Value:
        values = [self.eval(node.left)]
        identity = False
        membership = False
        container_literal = type(node.left) in _DISPLAY_TYPES or _is_none(node.left)
        for target in node.comparisons:
            values.append(self.eval(target.comparator))
            op = type(target.operator)
            if op in (cst.Is, cst.IsNot):
                identity = True
            elif op in (cst.In, cst.NotIn):
                membership = True
            if type(target.comparator) in _DISPLAY_TYPES or _is_none(target.comparator):
                container_literal = True
        if identity:
            # `x is None` / `x is not None` where the context knows x: the bool it makes is
            # known, so a flag built from it (`on = x is not None and ...`) decides an `if`.
            truth = self.truth(node) if self.truth is not None else None
            return Scalar("bool") if truth is None else Scalar("bool", truth)
        if _equality_with_plain_object(node, values):
            return Scalar("bool")  # `state == sentinel`: the array defers, identity decides
        if any(type(n) in _STRINGS for n in (node.left, *(t.comparator for t in node.comparisons))):
            return U  # a str compared with a parameter: a non-array argument (JIT111's case)
        if all(v.kind == STATIC for v in values):
            return Scalar("bool")
        if membership:
            return U  # `in` converts to bool itself; JIT101 reports it
        hit = next((v for v in values if v.kind == TRACED), None)
        if hit is None and not container_literal:
            hit = first_traced(values)
        if hit is not None:
            return traced(hit.why, boolean=True)
        return U

    def _ifexp(self, node: Any) -> Value:
        self.eval(node.test)
        truth = self.truth(node.test) if self.truth is not None else None
        if truth is not None:  # as for an `if` statement: the branch that never runs is no value
            return self._narrowed(node.test, truth, node.body if truth else node.orelse)
        body = self._narrowed(node.test, True, node.body)
        return join(body, self._narrowed(node.test, False, node.orelse))

    def _display(self, node: Any) -> Value:
        values = []
        starred = False
        for element in node.elements:
            value = self.eval(element.value)
            if type(element) is cst.StarredElement:
                if isinstance(value, Seq) and value.items is not None:
                    values.extend(value.items)
                    continue
                starred = True
                value = value.element()
            values.append(value)
        pytype = _DISPLAY_TYPES.get(type(node))
        if pytype == "set":
            return PYTHON_SET
        if starred and pytype in ("list", "tuple"):
            return Seq(pytype, elem=join_values(values))  # type: ignore[arg-type]
        return container(values, pytype)

    def _dict(self, node: Any) -> Value:
        entries: dict[Any, Value] | None = {}
        values = []
        for element in node.elements:
            if type(element) is cst.DictElement:
                key = self.eval(element.key)
                value = self.eval(element.value)
                if entries is not None and isinstance(key, Scalar) and key.known:
                    try:
                        entries[key.const] = value
                    except TypeError:
                        entries = None
                else:
                    entries = None
                values.append(value)
            else:  # `**other`
                value = self.eval(element.value)
                if isinstance(value, Dict) and value.entries is not None and entries is not None:
                    entries.update(value.entries)
                    values.extend(value.entries.values())
                else:
                    entries = None
                    values.append(value.elem if isinstance(value, Dict) else U)
        if entries is not None:
            return Dict(entries)
        return Dict(elem=join_values(values))

    def _comprehension(self, node: Any) -> Value:
        saved = self.env
        self.env = dict(saved)
        comp_for = node.for_in
        while comp_for is not None:
            iterable = self.eval(comp_for.iter)
            self.bind_iteration(comp_for.target, comp_for.iter, iterable)
            for condition in comp_for.ifs:
                self.eval(condition.test)
                self.narrow(condition.test, True)  # undone with the comprehension's env
            comp_for = comp_for.inner_for_in
        if type(node) is cst.DictComp:
            self.eval(node.key)
            element = self.eval(node.value)
        else:
            element = self.eval(node.elt)
        self.env = saved
        # The elements are what the element expression makes of the targets: `len(a)` of
        # each traced array is static. An iterable whose length is not known (a traced
        # array's rows) still has a static length under jit.
        kind = type(node)
        if kind is cst.ListComp:
            return Seq("list", elem=element)
        if kind is cst.GeneratorExp:
            return Seq("generator", elem=element)
        if kind is cst.DictComp:
            return Dict(elem=element)
        return PYTHON_SET

    def _lambda(self, node: Any) -> Value:
        for param in all_params(node.params):
            if param.default is not None:
                self.eval(param.default)
        return FunctionRef(node, self)

    def _yield(self, node: Any) -> Value:
        self.yields = True
        if node.value is not None:
            self.eval(node.value if type(node.value) is not cst.From else node.value.item)
        return U

    def _await(self, node: Any) -> Value:
        self.eval(node.expression)
        return U

    def _named(self, node: Any) -> Value:
        value = self.eval(node.value)
        self.bind(node.target, value, node.value)
        return value

    def _number(self, node: Any) -> Value:
        try:
            return constant(node.evaluated_value)
        except (ValueError, SyntaxError):
            return S

    def _string(self, node: Any) -> Value:
        try:
            return constant(node.evaluated_value)
        except (ValueError, SyntaxError, UnicodeDecodeError):
            return Scalar("str")

    def _fstring(self, node: Any) -> Value:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression:
                self.eval(part.expression)
                if part.format_spec:
                    for spec in part.format_spec:
                        if type(spec) is cst.FormattedStringExpression:
                            self.eval(spec.expression)
        return Scalar("str")

    def _concat(self, node: Any) -> Value:
        self.eval(node.left)
        self.eval(node.right)
        return Scalar("str")

    def _constant(self, node: Any) -> Value:
        return S


_EXPRESSIONS: dict[type, Callable[[Any, Any], Value]] = {
    cst.Name: Expressions._name,
    cst.Attribute: Expressions._attribute,
    cst.Call: Expressions._call,
    cst.Subscript: Expressions._subscript,
    cst.BinaryOperation: Expressions._binary,
    cst.UnaryOperation: Expressions._unary,
    cst.BooleanOperation: Expressions._boolean,
    cst.Comparison: Expressions._comparison,
    cst.IfExp: Expressions._ifexp,
    cst.Tuple: Expressions._display,
    cst.List: Expressions._display,
    cst.Set: Expressions._display,
    cst.Dict: Expressions._dict,
    cst.ListComp: Expressions._comprehension,
    cst.SetComp: Expressions._comprehension,
    cst.GeneratorExp: Expressions._comprehension,
    cst.DictComp: Expressions._comprehension,
    cst.Lambda: Expressions._lambda,
    cst.NamedExpr: Expressions._named,
    cst.FormattedString: Expressions._fstring,
    cst.ConcatenatedString: Expressions._concat,
    cst.Integer: Expressions._number,
    cst.Float: Expressions._number,
    cst.Imaginary: Expressions._number,
    cst.SimpleString: Expressions._string,
    cst.Ellipsis: Expressions._constant,
    cst.Yield: Expressions._yield,
    cst.Await: Expressions._await,
}


def _is_sequence(node: Any, value: Value) -> bool:
    return type(node) in (cst.List, cst.Tuple, cst.ListComp) or value.pytype in ("list", "tuple")


_AUGMENTED: dict[type, type] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo, cst.PowerAssign: cst.Power, cst.BitOrAssign: cst.BitOr,
    cst.BitAndAssign: cst.BitAnd, cst.BitXorAssign: cst.BitXor,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.LeftShiftAssign: cst.LeftShift,
    cst.RightShiftAssign: cst.RightShift,
}  # fmt: skip
_FOLD: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
}


def _scalar_op(op: type, left: Scalar, right: Scalar) -> Value:
    """Arithmetic on two Python scalars: a Python scalar, its value folded for small ints."""
    numeric = ("int", "float", "bool")
    if left.pytype == "str" or right.pytype == "str":
        return Scalar("str") if op in (cst.Add, cst.Multiply, cst.Modulo) else S
    if left.pytype in numeric and right.pytype in numeric:
        pytype = "float" if "float" in (left.pytype, right.pytype) or op is cst.Divide else "int"
        const = MISSING
        fold = _FOLD.get(op)
        if fold is not None and left.known and right.known and pytype == "int":
            try:
                result = fold(left.const, right.const)
                const = result if isinstance(result, int) and abs(result) < 2**63 else MISSING
            except (ArithmeticError, ValueError, TypeError):
                const = MISSING
        return Scalar(pytype, const)
    return S


def _sequence_op(op: type, left: Value, right: Value) -> Value:
    """`[a] + [b]`, `[x] * n`: Python sequence concatenation and repetition."""
    if (
        op is cst.Add
        and isinstance(left, Seq)
        and isinstance(right, Seq)
        and left.pytype == right.pytype
    ):
        if left.items is not None and right.items is not None:
            return Seq(left.pytype, [*left.items, *right.items])
        return Seq(left.pytype, elem=join(left.elem, right.elem))
    if op is cst.Multiply:
        seq, count = (left, right) if isinstance(left, Seq) else (right, left)
        if isinstance(seq, Seq) and isinstance(count, Scalar):
            if (
                seq.items is not None
                and isinstance(count.const, int)
                and 0 <= count.const * len(seq.items) <= 16
            ):
                return Seq(seq.pytype, list(seq.items) * count.const)
            return Seq(seq.pytype, elem=seq.elem)
    return U


def join_values(values: list[Value]) -> Value:
    if not values:
        return U
    out = values[0]
    for value in values[1:]:
        out = join(out, value)
    return out


def _equality_with_plain_object(node: cst.Comparison, values: list[Value]) -> bool:
    """`a == b` or `a != b` where one side is a value a JAX array does not recognise (a bare
    `object()`, a function, a class): `Array.__eq__` defers and Python compares identities,
    so the result is a Python bool even for a tracer."""
    if len(node.comparisons) != 1:
        return False
    if type(node.comparisons[0].operator) not in (cst.Equal, cst.NotEqual):
        return False
    return any(plain_python_object(v) for v in values)


def _is_none(expr: cst.CSTNode) -> bool:
    return type(expr) is cst.Name and expr.value == "None"  # type: ignore[attr-defined]


def all_params(params: cst.Parameters) -> list[cst.Param]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if type(star) is cst.Param:
            every.append(star)  # type: ignore[arg-type]
    return every
