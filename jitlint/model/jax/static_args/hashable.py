"""Static values JAX cannot hash (JIT110): what a call's own text passes (a list display, a
name bound to one, `np.zeros(...)`), what an annotation declares, and the events the tracing
model records for the values it follows (model/jax/transformed.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import libcst as cst

from jitlint.model.domain.values import Value
from jitlint.python.names import Names

_BUILTINS = {
    "builtins.list": "list",
    "builtins.dict": "dict",
    "builtins.set": "set",
    "builtins.bytearray": "bytearray",
}
_CONTAINER_ANNOTATIONS = {
    **{f"{m}.{n}": "list" for m in ("builtins", "typing") for n in ("list", "List")},
    **{f"{m}.{n}": "dict" for m in ("builtins", "typing") for n in ("dict", "Dict")},
    **{f"{m}.{n}": "set" for m in ("builtins", "typing") for n in ("set", "Set")},
}
_CONSTRUCTORS = (
    *("array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace"),
    *("eye", "identity", "zeros_like", "ones_like", "full_like", "empty_like"),
)
_ARRAY_CALLS = {f"{m}.{f}" for m in ("numpy", "jax.numpy") for f in _CONSTRUCTORS}
_DISPLAYS = {
    cst.List: "list",
    cst.ListComp: "list",
    cst.Dict: "dict",
    cst.DictComp: "dict",
    cst.Set: "set",
    cst.SetComp: "set",
}


class StaticEvent(NamedTuple):
    """A static argument the tracing model saw a call pass and JAX cannot hash."""

    param: str  # the parameter; "the function" for a jitted callable object
    why: str  # the value, as a phrase (model/domain/hashing.py)
    func: Any  # the function (a ForeignFunction for another file's); None for the callable
    where: cst.CSTNode  # the node to report at
    value: Value  # the value passed


@dataclass(frozen=True)
class Unhashable:
    """A value the source shows JAX cannot hash. `kind` is "list", "dict", "set",
    "bytearray", "array" or "value" (a call the settings name unhashable)."""

    kind: str
    # How the argument reaches it, outermost first: a local name read, or None for an
    # element of a tuple.
    route: tuple[str | None, ...] = ()

    def through(self, step: str | None) -> Unhashable:
        return Unhashable(self.kind, (step, *self.route))


def unhashable_expression(
    names: Names,
    expr: cst.BaseExpression,
    path: Sequence[cst.CSTNode],
    unhashable_calls: Iterable[str] = (),
    depth: int = 0,
) -> Unhashable | None:
    """What `expr` (in the scope `path` leads into) is when its text shows JAX cannot hash
    it; `unhashable_calls` are qualified names of further calls that return such values."""
    if depth > 3:
        return None
    display = _DISPLAYS.get(type(expr))
    if display is not None:
        return Unhashable(display)
    if isinstance(expr, cst.Tuple):
        for element in expr.elements:
            inner = unhashable_expression(names, element.value, path, unhashable_calls, depth + 1)
            if inner is not None:
                return inner.through(None)
        return None
    if isinstance(expr, cst.Call):
        candidates = names.qualified_names(expr.func, path)
        if not candidates:
            return None
        if candidates <= _BUILTINS.keys():
            return Unhashable(_BUILTINS[next(iter(candidates))])
        if candidates <= _ARRAY_CALLS:
            return Unhashable("array")
        if candidates <= set(unhashable_calls):
            return Unhashable("value")
        return None
    if isinstance(expr, cst.Name):
        found = names.lookup_with_path(expr.value, path)
        if found is None:
            return None
        bindings, scope_path = found
        kinds = set()
        for binding in bindings:
            if binding.kind != "assign" or binding.node is None:
                return None
            kind = unhashable_expression(
                names,
                binding.node,
                scope_path,
                unhashable_calls,
                depth + 1,  # type: ignore[arg-type]
            )
            if kind is None:
                return None
            kinds.add(kind)
        if len(kinds) == 1:
            return kinds.pop().through(expr.value)
    return None


def annotated_container(
    names: Names, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
) -> str | None:
    """ "list", "dict" or "set" when `annotation` declares one (`list[int]`, `typing.Dict`)."""
    head = annotation.value if type(annotation) is cst.Subscript else annotation  # type: ignore[attr-defined]
    if type(head) not in (cst.Name, cst.Attribute):
        return None
    kinds = {_CONTAINER_ANNOTATIONS.get(q) for q in names.qualified_names(head, path)}
    if len(kinds) != 1 or None in kinds:
        return None
    return kinds.pop()
