"""JIT204: a NumPy function applied to a symbolic tensor, spelled as the TensorFlow op that
computes the same thing in the graph.

Only functions whose TensorFlow twin takes the same arguments are rewritten: elementwise
functions of one tensor, `maximum`/`minimum` of two, and the reductions `sum`/`max`/`min`
with at most `axis=` and `keepdims=`. Every argument must be a tensor or a number literal:
a NumPy array or a Python list beside a tensor may carry another dtype, which NumPy
promotes and TensorFlow refuses.
"""

from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix

# numpy name -> tf.math name
_ELEMENTWISE = {
    n: n
    for n in ("sqrt", "exp", "log", "abs", "square", "tanh", "sin", "cos", "sign", "floor",
              "ceil", "log1p", "expm1", "negative")
}  # fmt: skip
_BINARY = {"maximum": "maximum", "minimum": "minimum"}
_REDUCTIONS = {"sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min",
               "amax": "reduce_max", "amin": "reduce_min"}  # fmt: skip
_REDUCTION_KEYWORDS = {"axis", "keepdims"}


def _number(node: cst.BaseExpression) -> bool:
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Integer, cst.Float)


def numpy_to_tf_fix(
    call: cst.Call, numpy_name: str, is_tensor, tf_spelled: str, imports: tuple[str, ...]
) -> NodeFix | None:
    """The fix for `np.<numpy_name>(...)` (`numpy_name` without the `numpy.` prefix), or
    None when its arguments or keywords are not the plain ones the twin takes.
    `is_tensor(expr)` says whether the model knows `expr` is a tensor."""
    if any(a.star for a in call.args):
        return None
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if numpy_name in _ELEMENTWISE and len(positional) == 1 and not keywords:
        target = _ELEMENTWISE[numpy_name]
    elif numpy_name in _BINARY and len(positional) == 2 and not keywords:
        target = _BINARY[numpy_name]
    elif numpy_name in _REDUCTIONS and 1 <= len(positional) <= 2:
        if keywords - _REDUCTION_KEYWORDS or (len(positional) == 2 and "axis" in keywords):
            return None
        target = _REDUCTIONS[numpy_name]
        positional = positional[:1]  # a positional axis stays as written
    else:
        return None
    if not any(is_tensor(p) for p in positional):
        return None
    if not all(is_tensor(p) or _number(p) for p in positional):
        return None
    return NodeFix(
        "unsafe",
        f"Replace `np.{numpy_name}` with `tf.math.{target}`",
        ((call.func, f"{tf_spelled}.math.{target}"),),
        imports,
    )
