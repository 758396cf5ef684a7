"""JIT207: a changing Python value passed to a `tf.function`, passed as a tensor instead
(and, at the end, JIT201's builders: a constant or array given the dtype it needs).

`tf.constant(value)` has the dtype TensorFlow infers for the value (int32 for a Python int,
float32 for a float), which may not be the dtype the function's ops meet: `x * factor` with
a float32 `x` refuses an int32 factor where it accepted the Python int. The fix is therefore
offered only where the tensor is converted as the Python value was (model/tf/repeats.py
`conversion_dtype`, which the rule asks):

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
