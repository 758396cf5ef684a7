"""Classes registered with `jax.tree_util.register_pytree_node_class`: their `tree_flatten`
returns `(children, aux_data)`. Under `jax.jit` the children are traced; the aux data is
static: jit keeps it in the treedef and compares it with `==` against the cached ones on
the next call. An array there breaks the comparison (its `==` is an array, with no single
truth value). Inside the trace an aux array is a constant; the model keeps it a plain
Python value (so `aux == 1` inside jit, a JAX operation on it, is not reported).

Only a `tree_flatten` that returns two tuples (or names bound once to tuples) of `self.x`
attributes is read; anything else leaves the class a pytree of unknown fields.

[bench/cases/jax-modules/pytree_aux_*.py record it at run time (jax 0.10.2);
tests/test_frameworks.py]
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jitlint.model.domain.classes import ClassInfo


@dataclass(frozen=True)
class Flattening:
    """What a custom pytree's flatten method makes children and what aux data."""

    children: tuple[str, ...]
    aux: tuple[str, ...]
    aux_node: cst.CSTNode  # the aux-data expression, for messages
    method: cst.FunctionDef


def flattening(info: ClassInfo) -> Flattening | None:
    method = info.methods.get("tree_flatten")
    if method is None or not method.plain or type(method.func.body) is not cst.IndentedBlock:
        return None
    func = method.func
    params = [*func.params.posonly_params, *func.params.params]
    if not params:
        return None
    receiver = params[0].name.value
    assigned: dict[str, cst.BaseExpression] = {}
    returned: cst.BaseExpression | None = None
    for statement in func.body.body:  # type: ignore[attr-defined]
        if type(statement) is not cst.SimpleStatementLine:
            return None
        for small in statement.body:  # type: ignore[attr-defined]
            if type(small) is cst.Assign and len(small.targets) == 1:  # type: ignore[attr-defined]
                target = small.targets[0].target  # type: ignore[attr-defined]
                if type(target) is cst.Name:
                    if target.value in assigned:  # type: ignore[attr-defined]
                        return None
                    assigned[target.value] = small.value  # type: ignore[attr-defined]
            elif type(small) is cst.Return:
                if returned is not None:
                    return None
                returned = small.value  # type: ignore[attr-defined]
    if type(returned) is not cst.Tuple or len(returned.elements) != 2:  # type: ignore[attr-defined]
        return None
    parts = []
    for element in returned.elements:  # type: ignore[attr-defined]
        expr = element.value
        if type(expr) is cst.Name and expr.value in assigned:  # type: ignore[attr-defined]
            expr = assigned[expr.value]  # type: ignore[attr-defined]
        attrs = _attributes(expr, receiver)
        if attrs is None:
            return None
        parts.append((attrs, expr))
    (children, _), (aux, aux_node) = parts
    return Flattening(children, aux, aux_node, func)


def _attributes(expr: cst.BaseExpression, receiver: str) -> tuple[str, ...] | None:
    if type(expr) not in (cst.Tuple, cst.List):
        return None
    out = []
    for element in expr.elements:  # type: ignore[attr-defined]
        value = element.value
        if (
            type(value) is not cst.Attribute
            or type(value.value) is not cst.Name
            or value.value.value != receiver
        ):
            return None
        out.append(value.attr.value)
    return tuple(out)
