"""Dtypes of TensorFlow values, for JIT201: where a `float32` made by an untyped
`tf.constant` of Python floats meets another float dtype.

A value's `DType` says its dtype where the code states it (None when unknown: unknown
never yields a finding), the untyped float constants its `float32` comes from (`consts`),
the parameters of its function it is computed from (`params`, for summaries), and whether
it is a NumPy array (which adapts to a tensor's dtype in an operator, observed).

Sources of dtypes:
- `dtype=` arguments and `tf.cast` targets, spelled `tf.float64`, `"float64"`, `np.double`,
  `x.dtype`, a name or class attribute bound to one (`FLOAT = tf.float64`,
  `Const.FLOAT`), a function returning one (`default_float()`), in this module or, through
  the project pass, in a module it imports (`facts`);
- Python float data in `tf.constant` (float32: the untyped constants), NumPy data
  (float64), and ops that keep their input's dtype;
- Keras: a layer's inputs are cast to its dtype (`super().__init__(dtype="float64")`, or
  `dtype=` where it is created, else `floatx`, set by `keras.config.set_floatx` /
  `tf.keras.backend.set_floatx`); a loss's targets and predictions have `floatx`;
- parameters: the arguments at the module's call sites (calls, `self.method(...)`,
  `instance.method(...)`, `functools.partial(f, name=value)`), NumPy arrays becoming tensors
  when the function is a `tf.function`, joined over the calls (`site_dtypes` keeps them call
  by call); attributes `self.x` from their assignments in the class. A class's creations
  in other files of the run reach its `__init__` too (their "new" records, tf_records.py:
  each argument a dtype, a tensor of a dtype, a Python value or unknown), and so its
  `self` attributes and its layer dtype; `self.proj(x)` of a sub-layer made with
  `dtype=` (`Dense(units, dtype=dtype)`) has that dtype.
Local names are read per program point (values.py); everything is bounded in depth.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import libcst as cst

from jitlint.model.tf.api import (
    DTYPE_ALIASES,
    DTYPE_PRESERVING,
    FLOAT_DTYPES,
    SAME_DTYPE_OPS,
    WIDE_DTYPES,
    canonical,
)
from jitlint.model.tf.repeats import bind
from jitlint.model.tf.values import PYTHON, TENSOR, Def, TfValues
from jitlint.model.tf_records import UNKNOWN_FACT, Argument, decode_arguments
from jitlint.python.attributes import class_body_assignments as _class_body_assignments
from jitlint.python.attributes import self_assignments as _self_assignments
from jitlint.python.binding import (
    DOUBLE_STARRED,
    STARRED,
    Bound,
    Signature,
    call_arguments,
    keyword_argument,
    positional_argument,
)
from jitlint.python.binding import bind as bind_arguments
from jitlint.python.builtins_facts import PARTIAL
from jitlint.python.names import leaf_name
from jitlint.python.walker import iter_children

_NUMPY_FLOAT_MAKERS = {
    f"numpy.{n}"
    for n in (
        "array", "asarray", "ones", "zeros", "full", "linspace", "arange", "eye", "empty",
        "identity", "logspace", "geomspace", "hanning", "hamming", "blackman", "bartlett",
        "kaiser",
    )
} | {
    f"numpy.random.{n}"
    for n in ("rand", "randn", "normal", "uniform", "random", "standard_normal", "random_sample")
}  # fmt: skip
# NumPy makers whose dtype follows their data, not float64 (`np.arange(8)` is int64,
# `np.full(3, 1)` too): the argument holding the data.
_NUMPY_DATA_ARGUMENT = {"numpy.array": 0, "numpy.asarray": 0, "numpy.full": 1}
_NUMPY_KEEPS_DTYPE = {"reshape", "transpose", "copy", "ravel", "flatten", "squeeze", "T"}
# NumPy functions whose result has their first argument's dtype (`x = np.clip(x, 0, 1)`
# keeps a float64 array float64), and those that keep a float dtype but make floats of
# integers (`np.sqrt` of an int64 array is float64).
_NUMPY_SAME_DTYPE = {
    f"numpy.{n}"
    for n in (
        "clip", "abs", "absolute", "negative", "square", "round", "cumsum", "sort", "flip",
        "squeeze", "expand_dims", "reshape", "transpose", "tile", "repeat", "copy", "roll",
        "ascontiguousarray", "ravel",
    )
}  # fmt: skip
_NUMPY_FLOATING = {
    f"numpy.{n}" for n in ("sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "ceil")
}
_CONSTANTS = {"tensorflow.constant", "tensorflow.convert_to_tensor"}
# Ops that convert a NumPy first argument on its own, to its float64, before the tensor
# after it (observed, TF 2.21: `tf.matmul(np.ones((2, 2)), x)` fails for a float32 `x`;
# `tf.multiply`, `tf.subtract`, `tf.maximum` and `tf.concat` convert it to `x`'s dtype).
NUMPY_FIRST_FIXES_DTYPE = {
    f"tensorflow.{n}" for n in ("add", "math.add", "matmul", "linalg.matmul")
}
# TensorArray methods whose result has the array's dtype (`write` returns the array).
# The calls `info` may mark as making untyped float constants or NumPy float64 tensors.
_MARKING = {"tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.Variable"}
# How those and `NUMPY_FIRST_FIXES_DTYPE` end: the scan keeps the calls spelled so.
DTYPE_LEAVES = frozenset({"constant", "convert_to_tensor", "Variable", "add", "matmul"})
# `as name`, `name =`, `name: T =`, `name :=`: every name a module may bind to another dotted
# name (`c = tf.constant`, `from tensorflow import constant as c`), and more.
_REBOUND = re.compile(r"\b(?:as\s+(\w+)|(\w+)\s*[:=])")
_TENSOR_ARRAY_READS = {"stack", "read", "gather", "concat", "write", "scatter", "unstack"}
_ORDERING = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)
_CASTS = {"tensorflow.cast", "tensorflow.dtypes.cast"}
_FLOATX_SETTERS = {
    "tensorflow.keras.backend.set_floatx",
    "keras.backend.set_floatx",
    "keras.config.set_floatx",
    "tf_keras.backend.set_floatx",
}
_FLOATX_GETTERS = {
    "tensorflow.keras.backend.floatx",
    "keras.backend.floatx",
    "keras.config.floatx",
    "tf_keras.backend.floatx",
}
_ARITHMETIC = {
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power,
    cst.MatrixMultiply, cst.Modulo,
}  # fmt: skip
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
_MAX_DEPTH = 12
Path = Sequence[cst.CSTNode]


@dataclass(frozen=True)
class DType:
    """What is known of a value's dtype and where it comes from."""

    name: str | None = None
    consts: frozenset[int] = frozenset()
    params: frozenset[str] = frozenset()
    numpy: bool = False
    # Tensors made from NumPy float64 data without `dtype=` (`tf.constant(np.hanning(8))`):
    # the calls that made this float64.
    arrays: frozenset[int] = frozenset()

    @property
    def from_constants(self) -> bool:
        """A float32 that untyped float constants made (or may have made)."""
        return bool(self.consts) and self.name in (None, "float32")


UNKNOWN = DType()


def join(items: Iterable[DType]) -> DType:
    """One of several possible values (a name assigned twice, a parameter of two calls)."""
    items = list(items)
    if not items:
        return UNKNOWN
    names = {i.name for i in items}
    return DType(
        names.pop() if len(names) == 1 else None,
        frozenset().union(*(i.consts for i in items)),
        frozenset().union(*(i.params for i in items)),
        all(i.numpy for i in items),
        frozenset().union(*(i.arrays for i in items)),
    )


def combine(items: Iterable[DType]) -> DType:
    """The result of an op whose operands must share a dtype: NumPy arrays and Python
    numbers adapt to the tensors among them; a conflict leaves the dtype unknown."""
    items = list(items)
    tensors = [i for i in items if not i.numpy] or items
    names = {i.name for i in tensors if i.name is not None}
    consts = frozenset().union(*(i.consts for i in tensors))
    params = frozenset().union(*(i.params for i in tensors))
    arrays = frozenset().union(*(i.arrays for i in tensors))
    if len(names) > 1:
        return DType(None, frozenset(), params)  # a mismatch: reported where it happens
    name = names.pop() if names else None
    return DType(name, consts, params, all(i.numpy for i in items), arrays)


@dataclass(frozen=True)
class Event:
    """A place where dtypes must agree (`meet`), or a float value is cast (`cast`), or
    arguments go to a function of another module with a parameter summary (`call`)."""

    kind: str
    node: cst.CSTNode
    path: tuple[cst.CSTNode, ...]
    operands: tuple[DType, ...] = ()
    target: str | None = None  # the cast's dtype; the callee's (or op's) dotted name
    where: str = ""
    arguments: tuple[tuple[str, DType], ...] = ()
    exprs: tuple[cst.CSTNode, ...] = ()  # the operands' expressions


@dataclass
class _Sites:
    """The calls of each function or class of the module, by callee (`TfDtypes._sites`)."""

    by_function: dict[int, list[tuple[cst.Call, tuple[cst.CSTNode, ...], int]]] = field(
        default_factory=dict
    )


class TfDtypes:
    def __init__(self, values: TfValues, model: Any) -> None:
        self.values = values
        self.model = model
        self.names = values.names
        self._memo: dict[int, DType] = {}
        # A parameter's dtype name by (its node's id, depth): every read of the parameter
        # asks the same of all the calls of its function.
        self._param_memo: dict[tuple[int, int], str | None] = {}
        self._returned_memo: dict[tuple[int, int], str | None] = {}
        self.constants: dict[int, cst.Call] = {}  # untyped float constants met so far
        self.arrays: dict[int, cst.Call] = {}  # tensors of NumPy float64 data met so far

    # ----- facts from other modules -------------------------------------------------------

    def _fact(self, names: Collection[str]) -> str | None:
        """The fact other modules give the name or attribute whose qualified names these
        are. No test whether there are facts at all: the project pass reads which facts a
        lint looked up (model/tf_records.py `TfReads`), and facts arrive after a first lint."""
        facts = self.model.facts
        found = {facts.get(n) for n in names}
        return found.pop() if len(found) == 1 else None

    # ----- dtype spellings ----------------------------------------------------------------

    def dtype_name(self, expr: cst.CSTNode, path: Path, depth: int = 0) -> str | None:
        """The dtype a dtype expression denotes: `tf.float64`, `"float64"`, `np.double`,
        `x.dtype`, a name or class attribute bound to one, `default_float()`, `floatx()`."""
        if depth > 6:
            return None
        kind = type(expr)
        if kind is cst.SimpleString:
            value = expr.evaluated_value  # type: ignore[attr-defined]
            return _canonical(value) if isinstance(value, str) else None
        if kind is cst.Attribute and _is_self(expr.value):  # type: ignore[attr-defined]
            found = self._self_dtype_name(expr, path, depth)  # type: ignore[arg-type]
            if found is not None or expr.attr.value != "dtype":  # type: ignore[attr-defined]
                return found
        if kind is cst.Attribute and expr.attr.value == "dtype":  # type: ignore[attr-defined]
            return self.dtype(expr.value, path, depth + 1)  # type: ignore[attr-defined]
        if kind is cst.Call:
            return self._dtype_of_call(expr, path, depth)  # type: ignore[arg-type]
        if kind not in (cst.Name, cst.Attribute):
            return None
        names = self.names.qualified_names(expr, path)
        leaves = set()
        for name in names:
            head = name.split(".")[0]
            if head in ("tensorflow", "numpy", "jax") and name:
                leaves.add(_canonical(name.rsplit(".", 1)[-1]))
            else:
                leaves.add(None)
        if names and len(leaves) == 1 and None not in leaves:
            return leaves.pop()
        fact = self._fact(names)
        if fact is not None and fact.startswith("dtype:"):
            return fact[len("dtype:") :]
        if kind is cst.Name:
            values = self.values.assigned_values(expr, path)  # type: ignore[arg-type]
            if values:
                found = {self.dtype_name(v, p, depth + 1) for v, p in values}
                if len(found) == 1:
                    return found.pop()
                return None
            return self._param_dtype_name(expr, path, depth)  # type: ignore[arg-type]
        # `Const.FLOAT`: a class attribute of a module class.
        return self._class_attribute_dtype(expr, path, depth)  # type: ignore[arg-type]

    def _self_dtype_name(self, expr: cst.Attribute, path: Path, depth: int) -> str | None:
        """`self.dtype`, `self.compute_dtype`...: the dtype the class's methods assign to
        the attribute (from a constructor argument: what the calls of the class pass)."""
        cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
        if cls is None:
            return None
        outer = self.model.scope_path(cls)[:-1]
        values = _self_assignments(cls, expr.attr.value, outer)
        found = {self.dtype_name(v, p, depth + 1) for v, p in values}
        return found.pop() if len(found) == 1 else None

    def _class_attribute_dtype(self, expr: cst.Attribute, path: Path, depth: int) -> str | None:
        if type(expr.value) is not cst.Name:
            return None
        bindings = self.names.lookup(expr.value.value, path)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "class":
            return None
        cls = bindings[0].node
        outer = self.model.scope_path(cls)[:-1]
        for value, value_path in _class_body_assignments(cls, expr.attr.value, outer):  # type: ignore[arg-type]
            return self.dtype_name(value, value_path, depth + 1)
        return None

    def _dtype_of_call(self, call: cst.Call, path: Path, depth: int) -> str | None:
        """`default_float()`, `tf.keras.backend.floatx()`: calls that return a dtype."""
        if type(call.func) not in (cst.Name, cst.Attribute):
            return None
        qualified = self.names.qualified_names(call.func, path)
        names = canonical(qualified)
        if names and names <= _FLOATX_GETTERS:
            return self.floatx
        fact = self._fact(qualified)
        if fact is not None and fact.startswith("fn:"):
            returns = _function_fact(fact).get("ret")
            return returns[0] if returns else None
        found = self.model.resolve_function(call.func, path)
        if found is not None and type(found[0]) is cst.FunctionDef:
            return self.returned_dtype_name(found[0], depth + 1)
        return None

    def returned_dtype_name(self, func: cst.FunctionDef, depth: int = 0) -> str | None:
        """The dtype every `return` of `func` names, if they agree (once per function and
        depth: each call site of `func` asks it)."""
        key = (id(func), depth)
        if key in self._returned_memo:
            return self._returned_memo[key]
        found = set()
        for value, value_path in _returns(func, self.model.scope_path(func)):
            found.add(self.dtype_name(value, value_path, depth + 1))
        self._returned_memo[key] = answer = found.pop() if len(found) == 1 else None
        return answer

    @cached_property
    def floatx(self) -> str | None:
        """The dtype `set_floatx` sets at module level (here or in an imported module)."""
        found = set()
        for stmt in self.model.module.body:
            if type(stmt) is not cst.SimpleStatementLine:
                continue
            for small in stmt.body:
                if type(small) is cst.Expr and type(small.value) is cst.Call:
                    call = small.value
                    path = [self.model.module, stmt, small, call]
                    names = canonical(self.names.qualified_names(call.func, path))
                    if names and names <= _FLOATX_SETTERS and call.args:
                        found.add(self.dtype_name(call.args[0].value, path))
        for fact in self.model.facts.starting("floatx:"):
            found.add(fact[len("floatx:") :])
        return found.pop() if len(found) == 1 else None

    # ----- dtypes of tensor expressions ---------------------------------------------------

    def dtype(self, expr: cst.CSTNode, path: Path, depth: int = 0) -> str | None:
        """The dtype of a tensor expression where the code states it; None when unknown."""
        return self.info(expr, path, depth).name

    def info(self, expr: cst.CSTNode, path: Path, depth: int = 0) -> DType:
        key = id(expr)
        found = self._memo.get(key)
        if found is not None:
            return found
        if depth > _MAX_DEPTH:
            return UNKNOWN
        self._memo[key] = UNKNOWN  # recursion guard
        result = self._info(expr, path, depth)
        self._memo[key] = result
        return result

    def _info(self, expr: cst.CSTNode, path: Path, depth: int) -> DType:
        kind = type(expr)
        if kind is cst.Call:
            return self._call_info(expr, path, depth)  # type: ignore[arg-type]
        if kind is cst.Name:
            return self._name_info(expr, path, depth)  # type: ignore[arg-type]
        if kind is cst.Attribute:
            value = expr.value  # type: ignore[attr-defined]
            if type(value) is cst.Name and value.value == "self":
                return self._attribute_info(expr, path, depth)  # type: ignore[arg-type]
            if expr.attr.value == "T":  # type: ignore[attr-defined]
                return self.info(value, path, depth + 1)
            return UNKNOWN
        if kind is cst.BinaryOperation:
            return combine(
                [
                    self.info(expr.left, path, depth + 1),  # type: ignore[attr-defined]
                    self.info(expr.right, path, depth + 1),  # type: ignore[attr-defined]
                ]
            )
        if kind is cst.Subscript:
            return self.info(expr.value, path, depth + 1)  # type: ignore[attr-defined]
        if kind is cst.UnaryOperation:
            return self.info(expr.expression, path, depth + 1)  # type: ignore[attr-defined]
        return UNKNOWN

    def _name_info(self, name: cst.Name, path: Path, depth: int) -> DType:
        defs = self.values.name_defs(name, path)
        if defs is not None and all(d.kind == "param" for d in defs) and defs:
            definition = defs[0]
            func = definition.path[-1]
            return self.param_info(func, name.value, depth)  # type: ignore[arg-type]
        values = self.values.assigned_values(name, path)
        if values:
            return join(self.info(v, p, depth + 1) for v, p in values)
        return UNKNOWN

    def _call_info(self, call: cst.Call, path: Path, depth: int) -> DType:
        func = call.func
        if type(func) is cst.Attribute and type(func.value) not in (cst.Name, cst.Attribute):
            return self._method_info(call, path, depth)
        if type(func) not in (cst.Name, cst.Attribute):
            return UNKNOWN
        helper = self._helper_info(call, path, depth)
        if helper is not None:
            return helper
        sublayer = self._sublayer_info(call, path, depth)
        if sublayer is not None:
            return sublayer
        names = canonical(self.names.qualified_names(func, path))
        if len(names) != 1 or "" in names:
            if type(func) is cst.Attribute:
                return self._method_info(call, path, depth)
            return UNKNOWN
        name = next(iter(names))
        dtype_arg = keyword_argument(call, "dtype")
        if name in _CASTS:
            target = dtype_arg or positional_argument(call, 1)
            return DType(self.dtype_name(target.value, path, depth + 1)) if target else UNKNOWN
        if name == "tensorflow.TensorArray":
            target = dtype_arg or positional_argument(call, 0)
            return DType(self.dtype_name(target.value, path, depth + 1)) if target else UNKNOWN
        if name in _NUMPY_FLOAT_MAKERS:
            if dtype_arg is not None:
                return DType(self.dtype_name(dtype_arg.value, path, depth + 1), numpy=True)
            if name in _NUMPY_DATA_ARGUMENT:
                data = positional_argument(call, _NUMPY_DATA_ARGUMENT[name])
                literal = literal_kind(data.value, self.values, path) if data else None
                found = {"float": "float64", "int": "int64"}.get(literal or "")
                return DType(found, numpy=True)
            if name == "numpy.arange":  # float64 if any bound or step is a float
                kinds = {literal_kind(a.value, self.values, path) for a in call.args if not a.star}
                found = {"float": "float64", "int": "int64"}.get(
                    "float" if "float" in kinds else (kinds.pop() if len(kinds) == 1 else "")
                )
                return DType(found, numpy=True)
            return DType("float64", numpy=True)
        if name in _NUMPY_SAME_DTYPE or name in _NUMPY_FLOATING:
            data = positional_argument(call, 0)
            if data is None or dtype_arg is not None:
                return UNKNOWN
            inner = self.info(data.value, path, depth + 1)
            if not inner.numpy or inner.name is None:
                return UNKNOWN
            if name in _NUMPY_FLOATING and inner.name not in FLOAT_DTYPES:
                return DType("float64", numpy=True)
            return DType(inner.name, numpy=True)
        if not name.startswith("tensorflow."):
            return UNKNOWN
        leaf = name[len("tensorflow.") :]
        if leaf in ("constant", "convert_to_tensor", "Variable"):
            target = dtype_arg or (positional_argument(call, 1) if leaf == "constant" else None)
            if target is not None:
                return DType(self.dtype_name(target.value, path, depth + 1))
            data = positional_argument(call, 0)
            if data is None:
                return UNKNOWN
            literal = literal_kind(data.value, self.values, path)
            if literal == "float":
                if name in _CONSTANTS and not keyword_argument(call, "dtype_hint"):
                    self.constants[id(call)] = call
                    return DType("float32", frozenset({id(call)}))
                return DType("float32")
            if literal == "int":
                return DType("int32")
            inner = self.info(data.value, path, depth + 1)
            if inner.numpy and inner.name == "float64" and not keyword_argument(call, "dtype_hint"):
                self.arrays[id(call)] = call  # NumPy's float64 default kept in the tensor
                return DType("float64", arrays=frozenset({id(call)}))
            return DType(inner.name, inner.consts, inner.params, arrays=inner.arrays)
        if leaf in ("zeros", "ones") and dtype_arg is None:
            dtype_arg = positional_argument(call, 1)
        if leaf in ("zeros", "ones", "eye", "fill", "random.uniform", "random.normal", "range"):
            if dtype_arg is not None:
                return DType(self.dtype_name(dtype_arg.value, path, depth + 1))
            defaults = ("zeros", "ones", "eye", "random.uniform", "random.normal")
            return DType("float32" if leaf in defaults else None)
        if leaf in ("zeros_like", "ones_like") and dtype_arg is not None:
            return DType(self.dtype_name(dtype_arg.value, path, depth + 1))
        if name in DTYPE_PRESERVING or leaf in ("zeros_like", "ones_like"):
            operands = [
                self.info(a.value, path, depth + 1)
                for a in call.args
                if a.keyword is None and literal_kind(a.value, self.values, path) is None
            ]
            if name in SAME_DTYPE_OPS:
                found = combine(operands)
            else:
                found = operands[0] if operands else UNKNOWN
            return replace(found, numpy=False)
        return UNKNOWN

    def _helper_info(self, call: cst.Call, path: Path, depth: int) -> DType | None:
        """The dtype a module function or method returns at this call: its returns joined;
        one that follows a parameter's dtype (ops that keep it) takes the dtype this call
        passes. None when `call` runs no such function."""
        func = call.func
        if type(func) is cst.Attribute and not (
            type(func.value) is cst.Name and func.value.value in ("self", "cls")
        ):
            return None
        found = self.model.callee(call, path)
        if found is None or type(found[0]) is not cst.FunctionDef:
            return None
        target, bound = found
        returns = [
            self.info(value, value_path, depth + 1)
            for value, value_path in _returns(target, self.model.scope_path(target))
        ]
        if not returns:
            return None
        result = join(returns)
        own = {p.name.value for p in (*target.params.posonly_params, *target.params.params)}
        followed = result.params & own
        if result.name is not None or not followed or result.params - own:
            return replace(result, params=frozenset())
        passed = [
            self.info(arg, path, depth + 1)
            for param, arg in bind(target, call, bound)
            if param in followed and literal_kind(arg, self.values, path) is None
        ]
        if len(passed) != len(followed):
            return replace(result, params=frozenset())
        site = combine(passed)
        consts = result.consts | site.consts
        return DType(site.name, consts, site.params, site.numpy, result.arrays | site.arrays)

    def _sublayer_info(self, call: cst.Call, path: Path, depth: int) -> DType | None:
        """`self.proj(x)` where the class makes `self.proj` a Keras layer that computes in
        its dtype (`Dense(units, dtype=dtype)`): the output has that dtype (Keras casts the
        inputs to it). None when that is not what every assignment of the attribute says."""
        func = call.func
        if type(func) is not cst.Attribute or not _is_self(func.value):
            return None
        cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
        if cls is None:
            return None
        outer = self.model.scope_path(cls)[:-1]
        found = set()
        for value, value_path in _self_assignments(cls, func.attr.value, outer):  # type: ignore[arg-type]
            if type(value) is not cst.Call:
                return None
            names = canonical(self.names.qualified_names(value.func, value_path))  # type: ignore[attr-defined]
            if len(names) != 1 or not _computes_in_its_dtype(next(iter(names))):
                return None
            arg = keyword_argument(value, "dtype")  # type: ignore[arg-type]
            found.add(self.dtype_name(arg.value, value_path, depth + 1) if arg else None)
        return DType(found.pop()) if len(found) == 1 and None not in found else None

    def _method_info(self, call: cst.Call, path: Path, depth: int) -> DType:
        """`array.reshape(...)`, `array.astype(D)`, `tensor.numpy()`: NumPy methods."""
        func = call.func
        if type(func) is not cst.Attribute:
            return UNKNOWN
        method = func.attr.value
        if method == "astype" and call.args:
            return DType(self.dtype_name(call.args[0].value, path, depth + 1), numpy=True)
        if method in _NUMPY_KEEPS_DTYPE:
            receiver = self.info(func.value, path, depth + 1)
            return receiver if receiver.numpy else UNKNOWN
        if method in _TENSOR_ARRAY_READS:
            receiver = self.info(func.value, path, depth + 1)
            return DType(receiver.name) if not receiver.numpy else UNKNOWN
        return UNKNOWN

    # ----- parameters and attributes ------------------------------------------------------

    def param_info(self, func: cst.FunctionDef | cst.Lambda, name: str, depth: int) -> DType:
        provenance = DType(params=frozenset({name}))
        if depth > _MAX_DEPTH or type(func) is not cst.FunctionDef:
            return provenance
        found = self._keras_param(func, name)
        sites = self._bound_arguments(func, name, depth)
        if found is None and not sites:
            return provenance
        items = ([DType(found)] if found is not None else []) + sites
        joined = join(items)
        return replace(joined, params=joined.params | provenance.params)

    def _keras_param(self, func: cst.FunctionDef, name: str) -> str | None:
        """Keras casts a layer's inputs to its compute dtype; losses see `floatx`."""
        context = self.model.keras_input_context(func)
        if context is None or name not in context.tensor_params:
            return None
        if id(func) in self.model.loss_functions:
            return self.floatx
        cls = self.model.keras_class_of(func)
        if cls is None:
            return None
        info, method = cls
        if info.category == "loss":
            return self.floatx
        if info.category != "layer" or method != "call":
            return None
        return self.layer_dtype(info.node) or self.floatx

    def layer_dtype(self, cls: cst.ClassDef) -> str | None:
        """`super().__init__(dtype=...)` in the class (or its module bases), or `dtype=`
        wherever the module creates it (all agreeing)."""
        for stmt in cls.body.body:  # type: ignore[attr-defined]
            if type(stmt) is cst.FunctionDef and stmt.name.value == "__init__":
                for call, call_path in _calls_in(stmt, self.model.scope_path(stmt)):
                    func = call.func
                    if (
                        type(func) is cst.Attribute
                        and func.attr.value == "__init__"
                        and type(func.value) is cst.Call
                    ):
                        arg = keyword_argument(call, "dtype")
                        if arg is not None:
                            return self.dtype_name(arg.value, call_path)
        found = set()
        for call, call_path, _ in self._sites.by_function.get(id(cls), ()):
            arg = keyword_argument(call, "dtype")
            found.add(self.dtype_name(arg.value, call_path) if arg is not None else None)
        for args in self._class_created_elsewhere(cls):
            fact = dict(args).get("dtype", "")
            found.add(fact[len("dtype:") :] if fact.startswith("dtype:") else None)
        return found.pop() if len(found) == 1 else None

    # ----- creations of the module's classes in other files ("new" records) ------------

    def argument_facts(self, call: cst.Call, path: Path) -> list[Argument]:
        """What each argument of `call` is, for a "new" record (tf_records.py): a dtype, a
        tensor (of a known dtype or not), a Python value, or unknown."""
        out: list[Argument] = []
        for keyword, expr in call_arguments(call):
            if keyword in (STARRED, DOUBLE_STARRED):
                out.append((keyword, UNKNOWN_FACT))
                continue
            dtype = None
            if type(expr) in (cst.Name, cst.Attribute, cst.SimpleString):
                dtype = self.dtype_name(expr, path)
            if dtype is not None:
                out.append((keyword, f"dtype:{dtype}"))
                continue
            kind = self.values.value(expr, path).kind
            if kind == PYTHON:
                out.append((keyword, "py"))
            elif kind == TENSOR:
                name = self.dtype(expr, path)
                out.append((keyword, f"tensor:{name}" if name else "tensor"))
            else:
                out.append((keyword, UNKNOWN_FACT))
        return out

    @cached_property
    def _creations(self) -> dict[str, list[list[Argument]]]:
        """The arguments other files of the run create each top-level class with."""
        out: dict[str, list[list[Argument]]] = {}
        for record in self.model.records("new"):
            args = decode_arguments(record.status)
            if args is not None:
                out.setdefault(record.function, []).append(args)
        return out

    def _class_created_elsewhere(self, cls: cst.CSTNode) -> list[list[Argument]]:
        """The argument lists other files create the top-level class `cls` with."""
        if not self._creations or type(cls) is not cst.ClassDef:
            return []
        if self.model.scope_path(cls)[:-1] != (self.model.module,):
            return []
        return self._creations.get(cls.name.value, [])

    def _created_elsewhere(self, func: cst.FunctionDef) -> list[Bound[str]]:
        """For the `__init__` of a top-level class: each creation of the class in another
        file, its argument facts bound to the parameters (the one call binder)."""
        if func.name.value != "__init__" or not self._creations:
            return []
        path = self.model.scope_path(func)
        if len(path) != 4:
            return []
        creations = self._class_created_elsewhere(path[1])
        return [bind_arguments(Signature.of(func, 1), args) for args in creations]

    def _calls_of(self, func: cst.FunctionDef) -> list[tuple[cst.Call, Path, int]]:
        """The module's calls of `func`; for a class's `__init__`, the calls of the class
        (its constructor arguments reach `__init__`)."""
        sites = list(self._sites.by_function.get(id(func), ()))
        if func.name.value == "__init__":
            path = self.model.scope_path(func)
            cls = path[-3] if len(path) >= 3 else None
            if type(cls) is cst.ClassDef:
                sites += [(c, p, 1) for c, p, _ in self._sites.by_function.get(id(cls), ())]
        return sites

    def _param_dtype_name(self, name: cst.Name, path: Path, depth: int) -> str | None:
        """The dtype a parameter names (`dtype=tf.float32`), when every call of its function
        passes the same one (the default where a call leaves it out)."""
        defs = self.values.name_defs(name, path)
        if not defs or len(defs) != 1 or defs[0].kind != "param":
            return None
        key = (id(defs[0].node), depth)
        if key not in self._param_memo:
            self._param_memo[key] = self._passed_dtype_name(name, defs[0], depth)
        return self._param_memo[key]

    def _passed_dtype_name(self, name: cst.Name, define: Def, depth: int) -> str | None:
        """`_param_dtype_name` of the parameter `define` binds, worked out."""
        func, param = define.path[-1], define.node
        if type(func) is not cst.FunctionDef:
            return None
        sites = self._calls_of(func)
        found = set()
        for call, call_path, bound in sites:
            passed = [arg for key, arg in bind(func, call, bound) if key == name.value]
            if passed:
                found.add(self.dtype_name(passed[0], call_path, depth + 1))
            elif any(arg.star for arg in call.args):
                return None  # `**options` may pass it
            else:
                default = getattr(param, "default", None)
                found.add(self.dtype_name(default, define.path, depth + 1) if default else None)
        for bound in self._created_elsewhere(func):
            fact = bound.arguments.get(name.value)
            if fact is not None:
                found.add(fact[len("dtype:") :] if fact.startswith("dtype:") else None)
            elif name.value in bound.defaulted:
                default = bound.defaulted[name.value]
                found.add(self.dtype_name(default, define.path, depth + 1))
            else:
                return None  # a star argument may pass it
        return found.pop() if len(found) == 1 else None

    def _bound_arguments(self, func: cst.FunctionDef, name: str, depth: int) -> list[DType]:
        """What the module's calls of `func` pass for `name`."""
        out = []
        graph_root = self.model.is_tf_function(func)
        for call, call_path, bound in self._calls_of(func):
            for param, arg in bind(func, call, bound):
                if param != name:
                    continue
                found = self.info(arg, call_path, depth + 1)
                if graph_root:  # NumPy arrays become tensors of their dtype
                    found = replace(found, numpy=False)
                out.append(found)
        for bound in self._created_elsewhere(func):
            fact = bound.arguments.get(name)
            if fact is not None:
                out.append(DType(fact[len("tensor:") :]) if fact.startswith("tensor:") else UNKNOWN)
            elif name in bound.uncertain:
                out.append(UNKNOWN)
        return out

    def site_dtypes(self, func: cst.FunctionDef, name: str) -> list[tuple[cst.Call, DType]]:
        """What each of the module's calls of `func` passes for `name`, call by call (the
        parameter's own value joins them)."""
        out = []
        graph_root = self.model.is_tf_function(func)
        for call, call_path, bound in self._calls_of(func):
            for param, arg in bind(func, call, bound):
                if param == name:
                    found = self.info(arg, call_path, 1)
                    out.append((call, replace(found, numpy=False) if graph_root else found))
        return out

    @cached_property
    def module_calls(self) -> list[tuple[cst.Call, tuple[cst.CSTNode, ...]]]:
        """Every call of the module with its path, in walk order (the scan's walk)."""
        return self.model.scan.all_calls

    @cached_property
    def _calls_by_statement(self) -> dict[int, list[tuple[cst.Call, tuple[cst.CSTNode, ...]]]]:
        """The module's calls under each top-level statement (by its id), in walk order."""
        out: dict[int, list[tuple[cst.Call, tuple[cst.CSTNode, ...]]]] = {}
        for call, path in self.module_calls:
            out.setdefault(id(path[1]), []).append((call, path))
        return out

    @cached_property
    def _spelled_calls(self) -> list[tuple[cst.Call, tuple[cst.CSTNode, ...]]]:
        """The calls that may resolve to `_MARKING` or `NUMPY_FIRST_FIXES_DTYPE`, with their
        paths: those spelled with a `DTYPE_LEAVES` name (the scan keeps them), and calls of
        names the module may bind to another name. Every call when a project alias may
        rename one, or without the source."""
        model = self.model
        source = model.source
        aliased = any(a.rsplit(".", 1)[-1] in DTYPE_LEAVES for a in self.names.aliases.values())
        if source is None or aliased:
            return self.module_calls
        scan = model.scan
        found = [(call, tuple(path)) for call, path in scan.dtype_calls]
        rebound = {a or b for a, b in _REBOUND.findall(source)} - DTYPE_LEAVES
        for calls in scan.calls.values():
            for call, path in calls:
                func = call.func
                if type(func) is cst.Name and func.value in rebound:
                    found.append((call, tuple(path)))
        return found

    @cached_property
    def marks(self) -> bool:
        """Whether the module makes a tensor that `info` marks as made by untyped float
        constants (`consts`) or from NumPy float64 data (`arrays`). Only a `tf.constant`,
        `tf.convert_to_tensor` or `tf.Variable` call with data and no `dtype=` or
        `dtype_hint=` can (it is marked when `info` reads it): their `info` is read here.
        Without a mark, only a NumPy array first in `tf.matmul`/`tf.add` can be reported."""
        for call, path in self._spelled_calls:
            func = call.func
            if type(func) not in (cst.Name, cst.Attribute):
                continue
            names = canonical(self.names.qualified_names(func, path))
            found = names & _MARKING
            if not found:
                continue
            if keyword_argument(call, "dtype") or keyword_argument(call, "dtype_hint"):
                continue
            if found == {"tensorflow.constant"} and positional_argument(call, 1) is not None:
                continue  # `tf.constant(value, dtype)`
            if positional_argument(call, 0) is not None:
                self.info(call, path)
        return bool(self.constants or self.arrays)

    @cached_property
    def numpy_first_calls(self) -> list[tuple[cst.Call, tuple[cst.CSTNode, ...]]]:
        """The calls of `tf.matmul`/`tf.add`, which convert a NumPy first argument on its own
        (`NUMPY_FIRST_FIXES_DTYPE`)."""
        found = []
        for call, path in self._spelled_calls:
            func = call.func
            if type(func) not in (cst.Name, cst.Attribute):
                continue
            names = canonical(self.names.qualified_names(func, path))
            if names and names <= SAME_DTYPE_OPS and min(names) in NUMPY_FIRST_FIXES_DTYPE:
                found.append((call, path))
        return found

    def numpy_first_events(self) -> Iterator[Event]:
        """What `events` yields for the `numpy_first_calls` only."""
        for call, path in self.numpy_first_calls:
            yield from self._call_events(call, path)

    @cached_property
    def _sites(self) -> _Sites:
        """Every call (and `partial(f, ...)`) of a module function or class, by callee."""
        sites = _Sites()
        model = self.model
        for call, call_path in self.module_calls:
            func = call.func
            target = None
            bound = 0
            if (type(func) is cst.Name and func.value == "partial") or (
                type(func) is cst.Attribute and func.attr.value == "partial"
            ):
                positional = [a for a in call.args if a.keyword is None]
                if positional and not positional[0].star:
                    inner = model.resolve_function(positional[0].value, call_path)
                    if inner is not None:
                        # `partial(f, a, b=c)`: bind as a call f(a, b=c)
                        shifted = cst.Call(func=positional[0].value, args=call.args[1:])
                        sites.by_function.setdefault(id(inner[0]), []).append(
                            (shifted, call_path, 0)
                        )
                continue
            if type(func) is cst.Name:
                bindings = self.names.lookup(func.value, call_path)
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    target = bindings[0].node
            if target is None:
                found = model.callee(call, call_path)
                if found is not None:
                    target, bound = found
            if target is not None:
                sites.by_function.setdefault(id(target), []).append((call, call_path, bound))
        return sites

    def _attribute_info(self, expr: cst.Attribute, path: Path, depth: int) -> DType:
        cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
        if cls is None:
            return UNKNOWN
        values = _self_assignments(cls, expr.attr.value, self.model.scope_path(cls)[:-1])  # type: ignore[arg-type]
        if not values:
            return UNKNOWN
        return join(self.info(v, p, depth + 1) for v, p in values)

    # ----- events -------------------------------------------------------------------------

    def events(self, roots: Iterable[cst.CSTNode] | None = None) -> Iterator[Event]:
        """Meetings, casts and calls with summaries in the module (or under `roots`)."""
        model = self.model
        starts = [(model.module, (model.module,))] if roots is None else [
            (root, tuple(model.scope_path(root))) for root in roots
        ]  # fmt: skip
        for start, start_path in starts:
            stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(start, start_path[:-1])]
            while stack:
                node, parents = stack.pop()
                here = (*parents, node)
                kind = type(node)
                if kind is cst.BinaryOperation and type(node.operator) in _ARITHMETIC:  # type: ignore[attr-defined]
                    operands = (
                        self.info(node.left, here),  # type: ignore[attr-defined]
                        self.info(node.right, here),  # type: ignore[attr-defined]
                    )
                    yield Event(
                        "meet",
                        node,
                        here,
                        operands,
                        where="an operator",
                        exprs=(node.left, node.right),  # type: ignore[attr-defined]
                    )
                elif (
                    kind is cst.Comparison
                    and len(node.comparisons) == 1  # type: ignore[attr-defined]
                    and type(node.comparisons[0].operator) in _ORDERING  # type: ignore[attr-defined]
                ):
                    right = node.comparisons[0].comparator  # type: ignore[attr-defined]
                    operands = (self.info(node.left, here), self.info(right, here))  # type: ignore[attr-defined]
                    yield Event(
                        "meet", node, here, operands, where="a comparison",
                        exprs=(node.left, right),  # type: ignore[attr-defined]
                    )  # fmt: skip
                elif kind is cst.Call:
                    yield from self._call_events(node, here)  # type: ignore[arg-type]
                stack.extend((child, here) for child in reversed(iter_children(node)))

    def _call_events(self, call: cst.Call, path: tuple[cst.CSTNode, ...]) -> Iterator[Event]:
        func = call.func
        if type(func) not in (cst.Name, cst.Attribute):
            return
        qualified = self.names.qualified_names(func, path)
        names = canonical(qualified)
        if not names:
            return
        if type(func) is cst.Attribute and func.attr.value == "write" and len(call.args) == 2:
            # `ta.write(i, value)`: the value must have the TensorArray's dtype.
            array = self.info(func.value, path)
            if array.name is not None and not array.numpy:
                value = call.args[1].value
                operands = (DType(array.name), self.info(value, path))
                where = "`TensorArray.write`"
                yield Event("meet", call, path, operands, where=where, exprs=(func.value, value))
            return
        if names <= _CASTS:
            target = keyword_argument(call, "dtype") or positional_argument(call, 1)
            data = positional_argument(call, 0)
            if target is not None and data is not None:
                dtype = self.dtype_name(target.value, path)
                yield Event("cast", call, path, (self.info(data.value, path),), dtype)
            return
        if names <= SAME_DTYPE_OPS:
            leaf = min(names).rsplit(".", 1)[-1]  # the name `api` below gives, not a set's first
            operands = [a.value for a in call.args if a.keyword is None and not a.star]
            if leaf in ("concat", "stack", "add_n") and operands:
                first = operands[0]
                if type(first) in (cst.List, cst.Tuple):
                    operands = [e.value for e in first.elements]  # type: ignore[attr-defined]
            elif leaf == "where":
                operands = operands[1:]
            infos = tuple(self.info(o, path) for o in operands)
            api = min(names).replace("tensorflow.", "tf.", 1)
            where = f"`{api}`"
            yield Event("meet", call, path, infos, min(names), where, exprs=tuple(operands))
            return
        args = call.args
        if names & PARTIAL and args and args[0].keyword is None:
            callee, args = args[0].value, args[1:]
            if type(callee) not in (cst.Name, cst.Attribute):
                return
            qualified = self.names.qualified_names(callee, path)
        fact = self._fact(qualified)
        if fact is None or not fact.startswith("fn:"):
            return
        (target,) = qualified or ("",)
        summary = _function_fact(fact)
        bound: list[tuple[str, DType]] = []
        for index, arg in enumerate(args):
            if arg.star:
                break
            key = arg.keyword.value if arg.keyword is not None else f"#{index}"
            if any(_sink_matches(s, key) for s in summary.get("sink", ())):
                bound.append((key, self.info(arg.value, path)))
        if bound:
            yield Event("call", call, path, target=target, arguments=tuple(bound), where=fact)

    # ----- summaries for other modules ----------------------------------------------------

    def summaries(self) -> dict[str, str]:
        """Facts about the module's top-level names for the modules importing them."""
        out: dict[str, str] = {}
        module = self.model.module
        for stmt in module.body:
            kind = type(stmt)
            if kind is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.Assign and len(small.targets) == 1:
                        target = small.targets[0].target
                        if type(target) is cst.Name:
                            fact = self._value_fact(small.value, [module, stmt, small])
                            if fact is not None:
                                out[target.value] = fact
            elif kind is cst.ClassDef:
                for item in stmt.body.body:  # type: ignore[attr-defined]
                    if type(item) is not cst.SimpleStatementLine:
                        continue
                    for small in item.body:
                        if type(small) is cst.Assign and len(small.targets) == 1:
                            target = small.targets[0].target
                            if type(target) is cst.Name:
                                path = [module, stmt, stmt.body, item, small]
                                fact = self._value_fact(small.value, path)
                                if fact is not None:
                                    out[f"{stmt.name.value}.{target.value}"] = fact  # type: ignore[attr-defined]
            elif kind is cst.FunctionDef:
                fact = self._function_summary(stmt)  # type: ignore[arg-type]
                if fact is not None:
                    out[stmt.name.value] = fact  # type: ignore[attr-defined]
        if self.floatx is not None and self._sets_floatx:
            out["__floatx__"] = f"floatx:{self.floatx}"
        return out

    @cached_property
    def _sets_floatx(self) -> bool:
        return "set_floatx" in (self.model.source or "")

    def _value_fact(self, value: cst.CSTNode, path: Path) -> str | None:
        kind = type(value)
        if kind in (cst.Name, cst.Attribute, cst.SimpleString):
            dtype = self.dtype_name(value, path)
            if dtype is not None:
                return f"dtype:{dtype}"
        if kind in (cst.List, cst.Tuple, cst.Float):
            literal = literal_kind(value, self.values, path)
            if literal == "float":
                return "data:float"
        return None

    def _function_summary(self, func: cst.FunctionDef) -> str | None:
        params = {p.name.value: i for i, p in enumerate(func.params.params)}
        widens = id(func) in self.model.scan.widening
        # `default_float()`: a function returning a dtype is a line or two.
        short = type(func.body) is cst.IndentedBlock and len(func.body.body) <= 3
        returns = self.returned_dtype_name(func) if short else None
        sinks: set[str] = set()
        if params and widens:
            # Casts only: where a parameter is cast to a wide dtype (the cheap, common sink).
            path = self.model.scope_path(func)
            calls = (
                self._calls_by_statement.get(id(func), ())
                if len(path) == 2
                else _calls_in(func, path)
            )
            for call, call_path in calls:
                if leaf_name(call.func) != "cast":
                    continue
                for event in self._call_events(call, call_path):
                    for param, dtype, how in _param_sinks(event):
                        if param in params:
                            sinks.add(f"{param}@{params[param]}={how} {dtype}")
        items = []
        if returns is not None:
            items.append(f"ret={returns}")
        items.extend(f"sink={s}" for s in sorted(sinks))
        return "fn:" + ";".join(items) if items else None


# Keras layers whose output is computed in the layer's dtype (`dtype=`): the inputs are cast
# to it and the weights are of it.
_COMPUTE_IN_DTYPE = frozenset(
    {
        "Dense", "EinsumDense", "Conv1D", "Conv2D", "Conv3D", "DepthwiseConv2D",
        "SeparableConv2D", "Conv1DTranspose", "Conv2DTranspose", "LayerNormalization",
        "BatchNormalization",
    }
)  # fmt: skip


def _computes_in_its_dtype(qualname: str) -> bool:
    parts = qualname.split(".")
    if parts[0] not in ("keras", "tensorflow", "tf_keras") or "keras" not in qualname:
        return False
    return parts[-1] in _COMPUTE_IN_DTYPE and "layers" in parts


def _param_sinks(event: Event) -> Iterator[tuple[str, str, str]]:
    """(parameter, wide dtype, "cast"/"meet") for parameters that an event casts to a wide
    float dtype or makes meet one."""
    if event.kind == "cast":
        if event.target in WIDE_DTYPES:
            for param in event.operands[0].params:
                yield param, event.target, "cast"  # type: ignore[misc]
    elif event.kind == "meet":
        wide = {o.name for o in event.operands if not o.numpy} & (FLOAT_DTYPES - {"float32"})
        if len(wide) == 1:
            dtype = wide.pop()
            for operand in event.operands:
                if operand.name is None:
                    for param in operand.params:
                        yield param, dtype, "meet"  # type: ignore[misc]


def _function_fact(fact: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in fact[len("fn:") :].split(";"):
        key, _, value = item.partition("=")
        if key:
            out.setdefault(key, []).append(value)
    return out


def _sink_matches(sink: str, key: str) -> bool:
    """`sink` is "name@index=how dtype"; `key` a keyword or "#index"."""
    head = sink.split("=", 1)[0]
    name, _, index = head.partition("@")
    return key == name or key == f"#{index}"


def sink_description(fact: str, key: str) -> tuple[str, str] | None:
    """(dtype, what happens to the parameter) for the argument `key` of a function fact."""
    for sink in _function_fact(fact).get("sink", ()):
        if _sink_matches(sink, key):
            head, _, how = sink.partition("=")
            verb, _, dtype = how.partition(" ")
            name = head.split("@")[0]
            if verb == "cast":
                return dtype, f"casts its parameter `{name}` to {dtype}"
            return dtype, f"makes its parameter `{name}` meet a {dtype} tensor"
    return None


def _calls_in(
    root: cst.CSTNode, path: Sequence[cst.CSTNode]
) -> Iterator[tuple[cst.Call, tuple[cst.CSTNode, ...]]]:
    """Every call under `root` (whose own path is `path`), with its path."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(root, tuple(path[:-1]))]
    while stack:
        node, parents = stack.pop()
        here = (*parents, node)
        if type(node) is cst.Call:
            yield node, here  # type: ignore[misc]
        stack.extend((child, here) for child in reversed(iter_children(node)))


def _returns(
    func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> Iterator[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
    """The values `func` returns (`path` ends at `func`), nested functions left out."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(func.body, tuple(path))]
    while stack:
        node, parents = stack.pop()
        here = (*parents, node)
        kind = type(node)
        if kind is cst.Return and node.value is not None:  # type: ignore[attr-defined]
            yield node.value, here  # type: ignore[attr-defined]
        if kind in _FUNCTIONS or kind is cst.ClassDef:
            continue
        stack.extend((child, here) for child in iter_children(node))


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
    with a float among them, `list(...)`/`tuple(...)` of such data, a name or class
    attribute bound only to such, a parameter whose default is such), "int" for int-only
    data."""
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
    if values is None or depth >= 3:
        return None
    if kind is cst.Call and len(expr.args) == 1 and type(expr.func) is cst.Name:  # type: ignore[attr-defined]
        if values.names.resolves_to(expr.func, path, {"builtins.list", "builtins.tuple"}):  # type: ignore[attr-defined]
            return literal_kind(expr.args[0].value, values, path, depth + 1)  # type: ignore[attr-defined]
        return None
    if kind is cst.Name:
        assigned = values.assigned_values(expr, path)  # type: ignore[arg-type]
        if assigned:
            found = {literal_kind(v, values, p, depth + 1) for v, p in assigned}
            return found.pop() if len(found) == 1 else None
        defs = values.name_defs(expr, path)  # type: ignore[arg-type]
        if defs and len(defs) == 1 and defs[0].kind == "param":
            param = defs[0].node
            default = getattr(param, "default", None)
            if default is not None:
                return literal_kind(default, values, defs[0].path, depth + 1)
        return None
    if kind is cst.Attribute:
        facts = getattr(values.model, "facts", {})
        names = values.names.qualified_names(expr, path)
        found = {facts.get(n) for n in names}
        if found == {"data:float"}:
            return "float"
        if type(expr.value) is cst.Name:  # type: ignore[attr-defined]
            bindings = values.names.lookup(expr.value.value, path)  # type: ignore[attr-defined]
            if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                cls = bindings[0].node
                outer = values.model.scope_path(cls)[:-1]  # type: ignore[attr-defined]
                for value, value_path in _class_body_assignments(cls, expr.attr.value, outer):  # type: ignore[arg-type,attr-defined]
                    return literal_kind(value, values, value_path, depth + 1)
    return None


def _is_self(expr: cst.CSTNode) -> bool:
    return type(expr) is cst.Name and expr.value == "self"  # type: ignore[attr-defined]
