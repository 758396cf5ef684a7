"""JIT207: a changing Python value passed to a `tf.function`, passed as a tensor instead
(and, at the end, JIT201's builders: a constant or array given the dtype it needs).

`tf.constant(value)` has the dtype TensorFlow infers for the value (int32 for a Python int,
float32 for a float), which may not be the dtype the function's ops meet: `x * factor` with
a float32 `x` refuses an int32 factor where it accepted the Python int. The fix is therefore
offered only where the tensor is converted as the Python value was:

- every read of the parameter is the value `tf.cast(param, dtype)` converts (`tf.cast`
  converts a Python value with exactly the dtype `tf.constant` infers, then casts it) or
  the indices of `tf.gather(params, param)` (converted the same way);
- or every read is an operand of an arithmetic operator or an ordering comparison whose
  other operand has a dtype the model knows, the same for all: a tensor operator converts
  a Python value to its tensor operand's dtype, which `tf.constant(value, dtype)` spells.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jitlint.diagnostics import Applicability
from jitlint.fixes.node_fix import NodeFix
from jitlint.python.walker import iter_children

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp,
           cst.DictComp, cst.GeneratorExp)  # fmt: skip


def parameter_for(func: cst.FunctionDef, call: cst.Call, arg: cst.Arg, bound: int) -> str | None:
    """The name of `func`'s plain parameter that `arg` of `call` binds (`bound` leading
    parameters are bound implicitly: 1 for a method called on an instance)."""
    params = func.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return None  # *args/**kwargs may take it
    if arg.keyword is not None:
        names = [p.name.value for p in (*params.params, *params.kwonly_params)]
        return arg.keyword.value if arg.keyword.value in names else None
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional):
        return None
    index = bound + positional.index(arg)
    ordered = [*params.posonly_params, *params.params]
    return ordered[index].name.value if index < len(ordered) else None


_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
               cst.Power)  # fmt: skip
_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
Parent = cst.CSTNode | None
Path = tuple[cst.CSTNode, ...]


# Arguments TensorFlow converts with the dtype `tf.constant` infers (int32, or int64 when a
# value does not fit; float32): position and keyword. `tf.cast` then casts; `tf.gather`'s
# indices accept the int32/int64 a list of Python ints becomes.
_CONVERTED = {
    "tensorflow.cast": (0, "x"),
    "tensorflow.dtypes.cast": (0, "x"),
    "tensorflow.gather": (1, "indices"),
}


def conversion_dtype(
    func: cst.FunctionDef,
    func_path: Path,
    name: str,
    qualified: Callable[[cst.Call, Path], set[str]],
    dtype_of: Callable[[cst.BaseExpression, Path], str | None],
) -> str | None:
    """How `tf.constant` must convert the value parameter `name` of `func` receives: ""
    (its inferred dtype) when every read is an argument TensorFlow converts that way (the
    first of `tf.cast`, the indices of `tf.gather`), a dtype name when every read is an
    operand beside a tensor of that known dtype; None otherwise, or when the body rebinds
    the parameter or reads it in a nested scope. `func_path` is the path from the module
    to `func`, ending with it; the callbacks get a node's full path (`qualified`: what a
    call's callee can be)."""
    casts = 0
    dtypes: set[str | None] = set()
    stack: list[tuple[cst.CSTNode, Path]] = [(func.body, (*func_path, func.body))]
    while stack:
        node, path = stack.pop()
        parent, grandparent = path[-2], path[-3]
        kind = type(node)
        if kind in _SCOPES:
            if _mentions(node, name):
                return None  # a nested function, class or comprehension reads or binds it
            continue
        if kind in (cst.Global, cst.Nonlocal):
            return None
        if kind is cst.Name and node.value == name:  # type: ignore[attr-defined]
            if _converted_argument(parent, grandparent, path[:-2], qualified):
                casts += 1
                continue
            other = _other_operand(node, parent, grandparent)
            if other is None:
                return None  # any other read, or a binding
            at = parent if type(parent) is not cst.ComparisonTarget else grandparent
            dtypes.add(dtype_of(other, (*path[: path.index(at) + 1], other)))
            continue
        if kind is cst.Attribute:  # `obj.name` is not the parameter
            stack.append((node.value, (*path, node.value)))  # type: ignore[attr-defined]
            continue
        stack.extend((child, (*path, child)) for child in iter_children(node))
    if casts and not dtypes:
        return ""
    if not casts and len(dtypes) == 1 and None not in dtypes:
        return next(iter(dtypes))
    return None


def _converted_argument(
    parent: Parent,
    grandparent: Parent,
    call_path: Path,
    qualified: Callable[[cst.Call, Path], set[str]],
) -> bool:
    """`parent` is the argument of call `grandparent` that TensorFlow converts as
    `tf.constant` would (`_CONVERTED`)."""
    if type(parent) is not cst.Arg or type(grandparent) is not cst.Call or parent.star:
        return False
    slots = {_CONVERTED.get(n) for n in qualified(grandparent, call_path)}
    if len(slots) != 1 or None in slots:
        return False
    position, keyword = slots.pop()  # type: ignore[misc]
    if parent.keyword is not None:
        return parent.keyword.value == keyword
    positional = [a for a in grandparent.args if a.keyword is None]
    if any(a.star for a in positional[: positional.index(parent)]):
        return False
    return positional.index(parent) == position


def _other_operand(
    node: cst.Name, parent: Parent, grandparent: Parent
) -> cst.BaseExpression | None:
    """The other operand of the arithmetic operator or single ordering comparison that
    `node` is an operand of."""
    if type(parent) is cst.BinaryOperation and type(parent.operator) in _ARITHMETIC:
        return parent.right if parent.left is node else parent.left
    comparison = parent if type(parent) is cst.Comparison else grandparent
    if type(comparison) is not cst.Comparison or len(comparison.comparisons) != 1:
        return None
    (target,) = comparison.comparisons
    if type(target.operator) not in _ORDERING:
        return None
    if comparison.left is node:
        return target.comparator
    return comparison.left if target.comparator is node else None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name and current.value == name:  # type: ignore[attr-defined]
            return True
        stack.extend(iter_children(current))
    return False


def tensor_argument_fix(
    args: list[cst.Name], dtype: str, tf_spelled: str, imports: tuple[str, ...]
) -> NodeFix:
    """`tf.constant(arg)`, or `tf.constant(arg, tf.<dtype>)`, for each argument."""
    typed = f", {tf_spelled}.{dtype}" if dtype else ""
    return NodeFix(
        "unsafe",
        "Pass the changing Python value as a tensor: `tf.constant(...)`",
        tuple((a, f"{tf_spelled}.constant({a.value}{typed})") for a in args),
        imports,
    )


# ----- JIT201: an untyped constant or NumPy array given the dtype the code around it needs:
# `dtype=` added where it is made, the array cast where it is used, or a constant made in the
# dtype it was cast to. The rule decides the dtype and whether the fix is safe.

Code = Callable[[cst.CSTNode], str]  # how the module spells a node


def add_dtype_fix(
    call: cst.Call, dtype_code: str, applicability: Applicability, imports: str | None, code: Code
) -> NodeFix:
    """`tf.constant(data)` -> `tf.constant(data, dtype=<dtype_code>)`."""
    data = code(call.args[0].value)
    return NodeFix(
        applicability,
        f"Add dtype={dtype_code}",
        ((call, f"{code(call.func)}({data}, dtype={dtype_code})"),),
        (imports,) if imports else (),
    )


def cast_to_float32_fix(
    expr: cst.BaseExpression, tf_spelled: str, imports: str | None, code: Code
) -> NodeFix:
    """`array` -> `tf.cast(array, tf.float32)` where an op converts it on its own."""
    return NodeFix(
        "safe",  # the old code always raised
        "Cast the array to float32",
        ((expr, f"{tf_spelled}.cast({code(expr)}, {tf_spelled}.float32)"),),
        (imports,) if imports else (),
    )


def typed_constant_fix(
    cast: cst.Call, constant: cst.Call, dtype: str, target: cst.Arg, code: Code
) -> NodeFix:
    """`tf.cast(tf.constant(data), tf.float64)` -> `tf.constant(data, dtype=tf.float64)`:
    `target` is the cast's dtype argument."""
    return NodeFix(
        "unsafe",
        f"Create the constant as {dtype} directly",
        (
            (
                cast,
                f"{code(constant.func)}({code(constant.args[0].value)}, "
                f"dtype={code(target.value)})",
            ),
        ),
    )
