"""JIT207: a changing Python value passed to a `tf.function`, passed as a tensor instead.

`tf.constant(value)` has the dtype TensorFlow infers for the value (int32 for a Python int,
float32 for a float), which may not be the dtype the function's ops meet: `x * factor` with
a float32 `x` refuses an int32 factor where it accepted the Python int. The fix is therefore
offered only where that cannot matter: every use of the parameter in the function is the
value `tf.cast(param, dtype)` converts, and `tf.cast` converts a Python value with exactly
the dtype `tf.constant` infers before it casts.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jitlint.engine.walker import iter_children
from jitlint.fixes.node_fix import NodeFix

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


def only_cast(func: cst.FunctionDef, name: str, is_cast: Callable[[cst.Call], bool]) -> bool:
    """Every read of parameter `name` in `func`'s body is the first argument of a
    `tf.cast` call, and nothing in the body rebinds it or hides it in a nested scope."""
    reads = 0
    # (node, its parent, its grandparent)
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = [
        (func.body, None, None)
    ]
    while stack:
        node, parent, grandparent = stack.pop()
        kind = type(node)
        if kind in _SCOPES:
            if _mentions(node, name):
                return False  # a nested function, class or comprehension reads or binds it
            continue
        if kind in (cst.Global, cst.Nonlocal):
            return False
        if kind is cst.Name and node.value == name:  # type: ignore[attr-defined]
            if not (
                type(parent) is cst.Arg
                and parent.keyword is None
                and type(grandparent) is cst.Call
                and grandparent.args[0] is parent
                and is_cast(grandparent)
            ):
                return False  # any other read, or a binding
            reads += 1
            continue
        if kind is cst.Attribute:  # `obj.name` is not the parameter
            stack.append((node.value, node, parent))  # type: ignore[attr-defined]
            continue
        stack.extend((child, node, parent) for child in iter_children(node))
    return reads > 0


def _mentions(node: cst.CSTNode, name: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name and current.value == name:  # type: ignore[attr-defined]
            return True
        stack.extend(iter_children(current))
    return False


def tensor_argument_fix(args: list[cst.Name], tf_spelled: str, imports: tuple[str, ...]) -> NodeFix:
    return NodeFix(
        "unsafe",
        "Pass the changing Python value as a tensor: `tf.constant(...)`",
        tuple((a, f"{tf_spelled}.constant({a.value})") for a in args),
        imports,
    )
