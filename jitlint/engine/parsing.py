"""libcst's parse as the lint runs it: the same tree, its nodes built more cheaply.

libcst's native parser builds each node by calling its class, so a node costs what its
dataclass constructor costs: one `object.__setattr__` per field (the classes are frozen) and
the check `__post_init__` runs (`_validate`). The parser builds only valid trees, so for the
length of a parse the check is a no-op, and each node class whose constructor only sets its
fields gets one that sets them through their slot descriptors directly (about half the
constructor's time). Making those constructors costs about as much as they save on 100 KB of
source, so a process makes them only once it has parsed that much: a one-file run in the
editor or a hook never pays for them. Both are put back as soon as the parse ends, so the
nodes that fixes and rules build are checked as libcst checks them.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections.abc import Callable

import libcst as cst
from libcst import CSTNode

# A field whose default comes from a factory, left out by the caller (dataclasses' own test).
_FACTORY = object()

Constructors = dict[type, tuple[Callable[..., None], Callable[..., None]]]
_constructors: Constructors | None = None
# The swap is process-wide: the editor server parses in its main thread and in the project
# pass's thread, and an unguarded second parse would take the first one's swapped-in
# check for libcst's own and leave it in place.
_swap_lock = threading.Lock()
# Source parsed by this process so far, and how much before the cheap constructors pay off.
_parsed_chars = 0
_CHEAP_AFTER_CHARS = 100_000


def parse(text: str) -> cst.Module:
    """`cst.parse_module(text)`, built without the per-node check and with the cheaper
    constructors (another libcst, one these do not fit: parsed as libcst does)."""
    global _parsed_chars
    with _swap_lock:
        check = CSTNode.__dict__.get("__post_init__")
        if check is None:
            return cst.parse_module(text)
        _parsed_chars += len(text)
        constructors = _cheap_constructors() if _parsed_chars > _CHEAP_AFTER_CHARS else {}
        CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
        for cls, (_, cheap) in constructors.items():
            type.__setattr__(cls, "__init__", cheap)
        try:
            return cst.parse_module(text)
        finally:
            for cls, (own, _) in constructors.items():
                type.__setattr__(cls, "__init__", own)
            CSTNode.__post_init__ = check  # type: ignore[method-assign]


def _unchecked(node: CSTNode) -> None:
    return None


def _cheap_constructors() -> Constructors:
    """Each node class's own constructor and its cheap one, made on the first parse."""
    global _constructors
    if _constructors is None:
        _constructors = {}
        for cls in _node_classes():
            cheap = _cheap_constructor(cls)
            if cheap is not None:
                _constructors[cls] = (cls.__dict__["__init__"], cheap)
    return _constructors


def _node_classes() -> list[type]:
    found: list[type] = []
    seen: set[type] = set()
    todo: list[type] = [CSTNode]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                found.append(sub)
                todo.append(sub)
    return found


def _cheap_constructor(cls: type) -> Callable[..., None] | None:
    """A constructor for `cls` that sets its fields as its dataclass constructor does (same
    parameters, defaults and factories) through the fields' slot descriptors, with no
    `__post_init__`; None where that would not be the same: not a slotted dataclass with a
    constructor of its own, a field the constructor does not take as a plain parameter, or a
    `__post_init__` of the class's own."""
    own = cls.__dict__.get("__init__")
    if own is None or not dataclasses.is_dataclass(cls):
        return None
    if any("__post_init__" in base.__dict__ for base in cls.__mro__[: cls.__mro__.index(CSTNode)]):
        return None
    fields = dataclasses.fields(cls)
    parameters = list(inspect.signature(own).parameters.values())[1:]
    if [p.name for p in parameters] != [f.name for f in fields] or any(
        p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters
    ):
        return None
    scope: dict[str, object] = {"_FACTORY": _FACTORY}
    signature, body = [], []
    for index, field in enumerate(fields):
        setter = _slot_setter(cls, field.name)
        if setter is None:
            return None
        scope[f"_set{index}"] = setter
        value = field.name
        if field.default is not dataclasses.MISSING:
            scope[f"_default{index}"] = field.default
            signature.append(f"{field.name}=_default{index}")
        elif field.default_factory is not dataclasses.MISSING:
            scope[f"_factory{index}"] = field.default_factory
            signature.append(f"{field.name}=_FACTORY")
            value = f"_factory{index}() if {field.name} is _FACTORY else {field.name}"
        else:
            signature.append(field.name)
        body.append(f"    _set{index}(self, {value})\n")
    text = f"def __init__(self, {', '.join(signature)}):\n{''.join(body) or '    pass'}\n"
    exec(text, scope)  # the way dataclasses writes constructors
    return scope["__init__"]  # type: ignore[return-value]


def _slot_setter(cls: type, name: str) -> Callable[[object, object], None] | None:
    """The `__set__` of the slot that holds field `name` of `cls`."""
    for base in cls.__mro__:
        slot = base.__dict__.get(name)
        if slot is not None:
            return slot.__set__ if inspect.ismemberdescriptor(slot) else None
    return None
