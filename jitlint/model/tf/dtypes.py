"""Dtypes of TensorFlow values where the file states them, for JIT201.

Sources: `dtype=` arguments, `tf.cast` targets, dtype constants (`FLOAT = tf.float64`),
Python float data (float32 in `tf.constant`), NumPy data (float64), and ops that keep their
input's dtype. Everything else is unknown (None), and unknown never yields a finding.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.model.tf.api import (
    DTYPE_ALIASES,
    DTYPE_PRESERVING,
    FLOAT_DTYPES,
    SAME_DTYPE_OPS,
    canonical,
)
from jitlint.model.tf.values import TfValues

_NUMPY_FLOAT_MAKERS = {
    f"numpy.{n}"
    for n in ("array", "asarray", "ones", "zeros", "full", "linspace", "arange", "eye", "empty")
} | {f"numpy.random.{n}" for n in ("rand", "randn", "normal", "uniform", "random")}


class TfDtypes:
    def __init__(self, values: TfValues) -> None:
        self.values = values

    def dtype_name(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> str | None:
        """The dtype a dtype expression denotes: `tf.float64`, `"float64"`, `np.double`,
        `x.dtype`, or a name bound to one of those (`FLOAT = tf.float64`)."""
        if depth > 4:
            return None
        kind = type(expr)
        if kind is cst.SimpleString:
            value = expr.evaluated_value  # type: ignore[attr-defined]
            return _canonical(value) if isinstance(value, str) else None
        if kind is cst.Attribute and expr.attr.value == "dtype":  # type: ignore[attr-defined]
            return self.dtype(expr.value, path, depth + 1)  # type: ignore[attr-defined]
        if kind not in (cst.Name, cst.Attribute):
            return None
        names = self.values.names.qualified_names(expr, path)
        leaves = set()
        for name in names:
            head = name.split(".")[0]
            if head in ("tensorflow", "numpy", "jax") and name:
                leaves.add(_canonical(name.rsplit(".", 1)[-1]))
            else:
                leaves.add(None)
        if names and len(leaves) == 1 and None not in leaves:
            return leaves.pop()
        if kind is cst.Name:
            values = self.values.assigned_values(expr, path)  # type: ignore[arg-type]
            if values:
                found = {self.dtype_name(v, p, depth + 1) for v, p in values}
                if len(found) == 1:
                    return found.pop()
        return None

    def dtype(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0) -> str | None:
        """The dtype of a tensor expression where the file states it; None when unknown."""
        if depth > 6:
            return None
        kind = type(expr)
        if kind is cst.Call:
            return self._call_dtype(expr, path, depth)  # type: ignore[arg-type]
        if kind is cst.Name:
            values = self.values.assigned_values(expr, path)  # type: ignore[arg-type]
            if values:
                found = {self.dtype(v, p, depth + 1) for v, p in values}
                return found.pop() if len(found) == 1 else None
            return None
        if kind is cst.BinaryOperation:
            left = self.dtype(expr.left, path, depth + 1)  # type: ignore[attr-defined]
            right = self.dtype(expr.right, path, depth + 1)  # type: ignore[attr-defined]
            if left and right:
                return left if left == right else None
            return left or right
        if kind is cst.Subscript:
            return self.dtype(expr.value, path, depth + 1)  # type: ignore[attr-defined]
        if kind is cst.UnaryOperation:
            return self.dtype(expr.expression, path, depth + 1)  # type: ignore[attr-defined]
        return None

    def _call_dtype(self, call: cst.Call, path: Sequence[cst.CSTNode], depth: int) -> str | None:
        names = canonical(self.values.names.qualified_names(call.func, path))
        if len(names) != 1:
            return None
        name = next(iter(names))
        dtype_arg = _keyword(call, "dtype")
        if name in ("tensorflow.cast", "tensorflow.dtypes.cast"):
            target = dtype_arg or _positional(call, 1)
            return self.dtype_name(target.value, path, depth + 1) if target else None
        if name in _NUMPY_FLOAT_MAKERS:
            if dtype_arg is not None:
                return self.dtype_name(dtype_arg.value, path, depth + 1)
            data = _positional(call, 0)
            if name in ("numpy.array", "numpy.asarray", "numpy.arange"):
                literal = literal_kind(data.value, self.values, path) if data else None
                return {"float": "float64", "int": "int64"}.get(literal or "")
            return "float64"
        if not name.startswith("tensorflow."):
            return None
        leaf = name[len("tensorflow.") :]
        if leaf in ("constant", "convert_to_tensor", "Variable"):
            target = dtype_arg or (_positional(call, 1) if leaf == "constant" else None)
            if target is not None:
                return self.dtype_name(target.value, path, depth + 1)
            data = _positional(call, 0)
            if data is None:
                return None
            literal = literal_kind(data.value, self.values, path)
            if literal == "float":
                return "float32"
            if literal == "int":
                return "int32"
            return self.dtype(data.value, path, depth + 1)  # e.g. a float64 NumPy array
        if leaf in ("zeros", "ones") and dtype_arg is None:
            dtype_arg = _positional(call, 1)
        if leaf in ("zeros", "ones", "eye", "fill", "random.uniform", "random.normal", "range"):
            if dtype_arg is not None:
                return self.dtype_name(dtype_arg.value, path, depth + 1)
            return (
                "float32"
                if leaf in ("zeros", "ones", "eye", "random.uniform", "random.normal")
                else None
            )
        if leaf in ("zeros_like", "ones_like") and dtype_arg is not None:
            return self.dtype_name(dtype_arg.value, path, depth + 1)
        if name in DTYPE_PRESERVING or leaf in ("zeros_like", "ones_like"):
            found = {
                self.dtype(a.value, path, depth + 1)
                for a in call.args
                if a.keyword is None and literal_kind(a.value, self.values, path) is None
            } - {None}
            if name in SAME_DTYPE_OPS:
                return found.pop() if len(found) == 1 else None
            first = _positional(call, 0)
            return self.dtype(first.value, path, depth + 1) if first is not None else None
        return None


def _canonical(name: str) -> str | None:
    name = DTYPE_ALIASES.get(name, name)
    if name in FLOAT_DTYPES or name.startswith(("int", "uint")) or name in ("bool", "string"):
        return name
    return None


def literal_kind(
    expr: cst.CSTNode,
    values: TfValues | None = None,
    path: Sequence[cst.CSTNode] = (),
    depth: int = 0,
) -> str | None:
    """ "float" for Python float data (a float literal, or a list/tuple of numeric literals
    with a float among them, or a name bound only to such), "int" for int-only data."""
    kind = type(expr)
    if kind is cst.Float:
        return "float"
    if kind is cst.Integer:
        return "int"
    if kind is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):  # type: ignore[attr-defined]
        return literal_kind(expr.expression, values, path, depth)  # type: ignore[attr-defined]
    if kind is cst.List or kind is cst.Tuple:
        kinds = set()
        for element in expr.elements:  # type: ignore[attr-defined]
            if type(element) is cst.StarredElement:
                return None
            inner = literal_kind(element.value, values, path, depth + 1)
            if inner is None:
                return None
            kinds.add(inner)
        if not kinds:
            return None
        return "float" if "float" in kinds else "int"
    if kind is cst.Name and values is not None and depth < 3:
        assigned = values.assigned_values(expr, path)  # type: ignore[arg-type]
        if assigned:
            found = {literal_kind(v, values, p, depth + 1) for v, p in assigned}
            return found.pop() if len(found) == 1 else None
    return None


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def _positional(call: cst.Call, index: int) -> cst.Arg | None:
    positional = [a for a in call.args if a.keyword is None]
    if index < len(positional) and not any(a.star for a in positional[: index + 1]):
        return positional[index]
    return None
