"""JIT204: a NumPy function applied to a symbolic tensor, spelled as the TensorFlow op that
computes the same thing in the graph; and a `tf.data` map function that needs its tensors'
values, run through `tf.py_function` (`dataset_py_function_fix`).

Only functions whose TensorFlow twin takes the same arguments are rewritten: elementwise
functions of one tensor, `maximum`/`minimum` of two, and the reductions `sum`/`max`/`min`
with at most `axis=` and `keepdims=`. Every argument must be a tensor or a number literal:
a NumPy array or a Python list beside a tensor may carry another dtype, which NumPy
promotes and TensorFlow refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.python.walker import descendants, iter_children

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

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


_DTYPED = {  # TensorFlow calls whose result has the dtype their argument names
    "tensorflow.convert_to_tensor": (1, "dtype"),
    "tensorflow.cast": (1, "dtype"),
    "tensorflow.dtypes.cast": (1, "dtype"),
    "tensorflow.constant": (1, "dtype"),
}


def dataset_py_function_fix(
    ctx: FileContext, func: cst.FunctionDef, tf_spelled: str, imports: tuple[str, ...]
) -> NodeFix | None:
    """`ds.map(f)`, where the module-level `f` needs its tensors' values (`.numpy()`), ->
    `ds.map(lambda a, b: tuple(tf.py_function(f, [a, b], [dtype_a, dtype_b])))`: `f` then runs
    as Python on eager tensors. Only where `f` is used nowhere else, takes plain parameters,
    and every `return` gives values of known dtypes in the same places: the dtype named in
    `tf.convert_to_tensor`/`tf.cast`/`tf.constant`, or a parameter returned as it came."""
    params = func.params
    names = [p.name.value for p in params.params]
    if func not in ctx.module.body or func.decorators or params.posonly_params:
        return None
    if (
        params.kwonly_params
        or params.star_kwarg
        or not isinstance(params.star_arg, cst.MaybeSentinel)
    ):
        return None
    if not names or any(p.default is not None for p in params.params):
        return None
    mapped = _only_mapped(ctx.module, func)
    if mapped is None:
        return None
    returns = [n for n in _own_nodes(func.body) if type(n) is cst.Return]
    if not returns or any(r.value is None for r in returns):
        return None
    bindings = ctx.names.scope(func).bindings
    kept = {n for n in names if len(bindings.get(n, [])) == 1}  # parameters never rebound
    shapes = {type(r.value) is cst.Tuple and len(r.value.elements) for r in returns}  # type: ignore[union-attr]
    if len(shapes) != 1:
        return None
    dtypes: list[str] | None = None
    for ret in returns:
        value = ret.value
        parts = [e.value for e in value.elements] if type(value) is cst.Tuple else [value]  # type: ignore[union-attr]
        found = [_dtype_of(ctx, part, [ctx.module, func, func.body], kept) for part in parts]  # type: ignore[arg-type]
        if None in found or (dtypes is not None and found != dtypes):
            return None
        dtypes = found  # type: ignore[assignment]
    assert dtypes is not None
    listed = ", ".join(names)
    call = f"{tf_spelled}.py_function({func.name.value}, [{listed}], "
    if type(returns[0].value) is cst.Tuple:
        text = f"lambda {listed}: tuple({call}[{', '.join(dtypes)}]))"
    else:
        text = f"lambda {listed}: {call}{dtypes[0]})"
    return NodeFix(
        "unsafe",
        f"run `{func.name.value}` as Python on eager tensors with `{tf_spelled}.py_function`",
        ((mapped, text),),
        imports,
    )


def _only_mapped(module: cst.Module, func: cst.FunctionDef) -> cst.Name | None:
    """The one mention of `func`'s name in the module besides its `def`, when it is the
    function given to a `.map(...)` call (first positional argument)."""
    name = func.name.value
    mentions = [n for n in descendants(module) if type(n) is cst.Name and n.value == name]
    calls = [
        n
        for n in descendants(module)
        if type(n) is cst.Call
        and type(n.func) is cst.Attribute
        and n.func.attr.value == "map"
        and n.args
        and n.args[0].keyword is None
        and n.args[0].value in mentions
    ]
    if len(mentions) != 2 or len(calls) != 1:
        return None
    return calls[0].args[0].value  # type: ignore[return-value]


def _own_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes of a function body, without those of nested functions, classes, lambdas."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        if type(node) not in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            stack.extend(iter_children(node))
    return found


def _dtype_of(
    ctx: FileContext, expr: cst.BaseExpression, path: list[cst.CSTNode], kept: set[str]
) -> str | None:
    """The source of `expr`'s dtype: the dtype a converting call names, or `p.dtype` for a
    parameter `p` returned unchanged."""
    if type(expr) is cst.Name:
        return f"{expr.value}.dtype" if expr.value in kept else None
    if type(expr) is not cst.Call:
        return None
    slots = {_DTYPED.get(n) for n in ctx.names.qualified_names(expr.func, path)}
    if len(slots) != 1 or None in slots:
        return None
    position, keyword = slots.pop()  # type: ignore[misc]
    positional = [a for a in expr.args if a.keyword is None]
    if any(a.star for a in expr.args):
        return None
    chosen = next((a for a in expr.args if a.keyword and a.keyword.value == keyword), None)
    if chosen is None and len(positional) > position:
        chosen = positional[position]
    if chosen is None or type(chosen.value) not in (cst.Attribute, cst.Name):
        return None
    code = ctx.module.code_for_node(chosen.value)
    return None if "\n" in code else code
