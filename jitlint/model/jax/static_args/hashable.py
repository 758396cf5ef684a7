"""Static values JAX cannot hash (JIT110): what a call's own text passes (a list display, a
name bound to one, `np.zeros(...)`), what an annotation declares, and the events the tracing
model records for the values it follows (model/jax/transformed.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import libcst as cst

from jitlint.model.domain.classes import Classes, ClassInfo
from jitlint.model.domain.values import Value
from jitlint.model.jax.frameworks.contracts import is_array_annotation
from jitlint.model.jax.frameworks.equinox import ArrayHolder, array_holder
from jitlint.model.jax.jit import JitApplication
from jitlint.python.names import Names, leaf_name

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
    # The path it is on when only one side of a conditional gives it ("`c` is false",
    # "`opts` is falsy"): the call fails on that path, the other side is not known.
    when: str | None = None

    def through(self, step: str | None) -> Unhashable:
        return Unhashable(self.kind, (step, *self.route), self.when)


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
    if isinstance(expr, cst.IfExp | cst.BooleanOperation):
        return _one_side(names, expr, path, unhashable_calls, depth)
    if isinstance(expr, cst.Call):
        candidates = names.qualified_names(expr.func, path)
        if not candidates:
            return None
        if candidates <= _BUILTINS.keys():
            return Unhashable(_BUILTINS[min(candidates)])  # one name whatever the hash seed
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


def _one_side(
    names: Names,
    expr: cst.IfExp | cst.BooleanOperation,
    path: Sequence[cst.CSTNode],
    unhashable_calls: Iterable[str],
    depth: int,
) -> Unhashable | None:
    """`a if c else {}`, `opts or {}`: each side is a path the program takes, so a side the
    text shows JAX cannot hash fails the call on its path, whatever the other side is. Only
    the fallback of `or` counts (its left side is returned only when truthy); `and` is left
    alone."""
    if isinstance(expr, cst.BooleanOperation):
        if type(expr.operator) is not cst.Or:
            return None
        found = unhashable_expression(names, expr.right, path, unhashable_calls, depth + 1)
        if found is None or found.when is not None:
            return None
        left = _code(names, expr.left)
        return Unhashable(found.kind, found.route, f"`{left}` is falsy")
    body = unhashable_expression(names, expr.body, path, unhashable_calls, depth + 1)
    orelse = unhashable_expression(names, expr.orelse, path, unhashable_calls, depth + 1)
    if body is not None and orelse is not None and body.when is None and orelse.when is None:
        return body if body.kind == orelse.kind else Unhashable("value")
    side, outcome = (body, "true") if orelse is None else (orelse, "false")
    if side is None or side.when is not None or (body and orelse):
        return None
    return Unhashable(side.kind, side.route, f"`{_code(names, expr.test)}` is {outcome}")


def _code(names: Names, expr: cst.BaseExpression) -> str:
    text = " ".join(names.module.code_for_node(expr).split())
    return text if len(text) <= 40 else text[:37] + "..."


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


@dataclass(frozen=True)
class DeclaredUnhashable:
    """A static parameter whose declaration says every call passes a value JAX cannot hash:
    an annotation (`annotated`: "list", "dict", "set" or "JAX array"), or `self` of a method
    of a class (`cls`) whose instances hash their fields and hold an array (`holder`)."""

    param: str
    annotated: str | None = None
    cls: ClassInfo | None = None
    holder: ArrayHolder | None = None


def declared_unhashable(
    names: Names,
    classes: Classes,
    app: JitApplication,
    path: Sequence[cst.CSTNode],
    decorated: bool = False,
) -> list[DeclaredUnhashable]:
    """The static parameters of the function `app` jits whose declarations say JAX cannot
    hash them. `path` leads to the def (`decorated`) or to the jit call."""
    func = app.func
    sig = app.signature
    if type(func) is not cst.FunctionDef or sig is None:
        return []
    static = app.spec.effective(sig)
    if static is None:
        return []
    nums, static_names = static
    static_names = {sig.positional[i] for i in nums if i < len(sig.positional)} | static_names
    params = func.params
    method = _method_class(classes, func, path)
    out = []
    for index, param in enumerate((*params.posonly_params, *params.params, *params.kwonly_params)):
        name = param.name.value
        if name not in static_names:
            continue
        if index == 0 and method is not None and param in params.params:
            holder = array_holder(classes, method)
            if holder is not None:
                out.append(DeclaredUnhashable(name, cls=method, holder=holder))
            continue
        if param.annotation is None:
            continue
        annotation = param.annotation.annotation
        kind = annotated_container(names, annotation, path)
        if kind is not None and decorated and _handed_on(names, func, path[-2]):
            kind = None  # `list[int]` for any sequence: the dispatcher decides
        if kind is None and is_array_annotation(names, annotation, path):
            kind = "JAX array"
        if kind is not None:
            out.append(DeclaredUnhashable(name, annotated=kind))
    return out


def _handed_on(names: Names, func: cst.FunctionDef, parent: cst.CSTNode) -> bool:
    """The jitted `def` is handed on as a value in its module (returned, passed, stored: an
    op handler giving it to a dispatcher) and never called there: the code that calls it
    fills its static arguments, and an annotation Python never checks (`list[int]` for a
    sequence) says nothing of what that code passes."""
    if type(parent) is not cst.Module:
        return False  # a method or a local def: its reads are not names of the module
    reads = names.reads(func.name.value)
    called = any(type(parent) is cst.Call and parent.func is node for node, parent in reads)
    return bool(reads) and not called


def _method_class(
    classes: Classes, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> ClassInfo | None:
    """The class `func` is a plain method of (not a static or class method)."""
    if any(leaf_name(d.decorator) in ("staticmethod", "classmethod") for d in func.decorators):
        return None
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        if type(node) is cst.ClassDef:
            return classes.of(node, path[:index])  # type: ignore[arg-type]
        if type(node) in (cst.FunctionDef, cst.Lambda):
            return None
    return None
