"""One traversal over a libcst tree that calls every rule's hooks.

libcst's own visitor rebuilds each node while it walks (about 0.45x a parse on its own); reading
the dataclass fields directly costs a tenth of that. Whitespace, parentheses, commas and operator
tokens are never visited: no rule looks at them as nodes of their own.
"""

from __future__ import annotations

import dataclasses
import typing
from collections import abc
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

from libcst import CSTNode

Hook = Callable[[Any], None]

_SKIPPED_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "trailing_whitespace",
        "newline",
        "colon",
        "equal",
        "operator",
        "default_indent",
        "default_newline",
        "encoding",
        "has_trailing_newline",
        "star",
        "dot",
        "arrow",
        "asynchronous",
    }
)
_child_fields: dict[type, tuple[str, ...]] = {}
_readers: dict[type, Callable[[Any], list[Any]]] = {}


def _concrete_node_types() -> frozenset[type]:
    found: set[type] = set()
    pending = [CSTNode]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                found.add(sub)
                pending.append(sub)
    return frozenset(found)


# libcst node classes are ABCs, and isinstance() against an ABC is slow; a set lookup on the
# exact type is not. Every node libcst builds is of one of these concrete classes.
NODE_TYPES = _concrete_node_types()
_TYPES_BY_NAME: dict[str, list[type]] = {}
for _type in NODE_TYPES:
    _TYPES_BY_NAME.setdefault(_type.__name__, []).append(_type)


def child_fields(node_type: type) -> tuple[str, ...]:
    """The fields of a node type that can hold nodes a rule looks at. `dataclasses.fields`
    lists real fields only: libcst's `__dataclass_fields__` also holds its `__slots__`
    (a tuple of strings every traversal would otherwise read and skip, item by item)."""
    names = _child_fields.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _child_fields[node_type] = names
    return names


def _field_kind(annotation: object) -> str:
    """What a field of this declared type can hold: "none" (text, flags: never a node),
    "node" (always one node), "nodes" (always a sequence of nodes), or "any" (a node, a
    sequence, None or a sentinel: looked at when read)."""
    if annotation is str or annotation is bool or typing.get_origin(annotation) is Literal:
        return "none"
    if typing.get_origin(annotation) is abc.Sequence:
        return "nodes"
    if isinstance(annotation, type) and issubclass(annotation, CSTNode):
        return "node"
    return "any"


# A node type's reader is compiled once the type has been read this often: a compile costs
# ~40 us, which the rarer node types of a small file never win back (a loop over the fields
# reads them meanwhile, in the same order).
_COMPILE_AFTER = 16


def _no_children(node: Any) -> list[Any]:
    return []


def _reader(node_type: type) -> Callable[[Any], list[Any]]:
    """A function that lists the children of a node of `node_type`, read field by field. It
    stands in for the type's compiled reader (`_compiled_reader`) until the type has been
    read `_COMPILE_AFTER` times; a type with no field that can hold a node has none."""
    declared = {f.name: f.type for f in dataclasses.fields(node_type)}
    plan = [(name, _field_kind(declared[name])) for name in child_fields(node_type)]
    plan = [(name, kind) for name, kind in plan if kind != "none"]
    if not plan:
        _readers[node_type] = _no_children
        return _no_children
    reads = 0

    def read(node: Any) -> list[Any]:
        nonlocal reads
        reads += 1
        if reads > _COMPILE_AFTER:
            compiled = _readers[node_type] = _compiled_reader(node_type, plan)
            return compiled(node)
        out: list[Any] = []
        for name, kind in plan:
            value = getattr(node, name)
            if kind == "node":
                out.append(value)
            elif kind == "nodes":
                out += value
            else:
                found = type(value)
                if found in NODE_TYPES:
                    out.append(value)
                elif found is tuple or found is list:
                    out += value
        return out

    _readers[node_type] = read
    return read


def _compiled_reader(node_type: type, plan: list[tuple[str, str]]) -> Callable[[Any], list[Any]]:
    """The reader of `node_type` written for its fields. iter_children runs for every node of
    every traversal (several per file), so it reads each field by name and tests a value's
    type only where the declared type leaves it open: about two thirds of the time of a
    loop over all the fields' values."""
    lines = []
    for name, kind in plan:
        if kind == "node":
            lines.append(f"    out.append(node.{name})")
        elif kind == "nodes":
            lines.append(f"    out += node.{name}")
        else:
            lines += [
                f"    value = node.{name}",
                "    kind = type(value)",
                "    if kind in node_types:",
                "        out.append(value)",
                "    elif kind is tuple or kind is list:",
                "        out += value",
            ]
    code = "\n".join(["def read(node):", "    out = []", *lines, "    return out"])
    namespace: dict[str, Any] = {"node_types": NODE_TYPES}
    exec(compile(code, f"<children of {node_type.__name__}>", "exec"), namespace)
    return namespace["read"]


def iter_children(node: CSTNode) -> list[CSTNode]:
    """The node's children in source order (a new list; callers may change it)."""
    reader = _readers.get(type(node))
    if reader is None:
        reader = _reader(type(node))
    return reader(node)


def descendants(root: CSTNode) -> Iterator[CSTNode]:
    """`root` and every node below it, depth first (no order promised beyond that)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(iter_children(node))


def own_scope_nodes(root: CSTNode, scopes: tuple[type, ...]) -> Iterator[CSTNode]:
    """`root` and every node below it, depth first, except nodes of the `scopes` types and
    all below them (the bodies of nested functions, lambdas, classes)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) in scopes:
            continue
        yield node
        stack.extend(iter_children(node))


def contains(root: CSTNode, target: CSTNode) -> bool:
    """Whether `target` is `root` or a node below it."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node is target:
            return True
        stack.extend(iter_children(node))
    return False


_hook_names_by_class: dict[type, tuple[str, ...]] = {}


def _hook_names(listener_type: type) -> tuple[str, ...]:
    """The `visit_*`/`leave_*` attributes of a listener class (`dir` is slow, and a run
    makes the same rules' walker once per file)."""
    names = _hook_names_by_class.get(listener_type)
    if names is None:
        names = tuple(a for a in dir(listener_type) if a.startswith(("visit_", "leave_")))
        _hook_names_by_class[listener_type] = names
    return names


class Walker:
    """Dispatch `visit_<NodeType>` / `leave_<NodeType>` hooks of many listeners in one pass.

    `parents` holds the ancestors of the node being visited (innermost last), so hooks can
    ask where they are without a ParentNodeProvider. A listener whose hook raises is reported
    through `on_error` once and dropped for the rest of the walk; the others go on.
    """

    def __init__(
        self,
        listeners: Iterable[object],
        on_error: Callable[[object, BaseException], None] | None = None,
    ) -> None:
        self.visit: dict[str, list[tuple[object, Hook]]] = {}
        self.leave: dict[str, list[tuple[object, Hook]]] = {}
        for listener in listeners:
            for attr in _hook_names(type(listener)):
                table = self.visit if attr.startswith("visit_") else self.leave
                table.setdefault(attr[6:], []).append((listener, getattr(listener, attr)))
        self.parents: list[CSTNode] = []
        self.on_error = on_error
        self.failed: set[int] = set()

    def walk(self, root: CSTNode) -> None:
        # The hooks by node type, not name: one dict lookup per node, no `__name__` read.
        visit = {
            t: hooks for name, hooks in self.visit.items() for t in _TYPES_BY_NAME.get(name, ())
        }
        leave = {
            t: hooks for name, hooks in self.leave.items() for t in _TYPES_BY_NAME.get(name, ())
        }
        parents = self.parents
        # Iterative, so deeply nested code cannot exhaust Python's recursion limit. A node on
        # the stack is to be entered; a 1-tuple `(node,)` is to be left (its leave hooks run
        # when it comes back off, after its children).
        stack: list[Any] = [root]
        pop, push, push_all = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            if type(node) is tuple:
                node = node[0]
                parents.pop()
                hooks = leave.get(type(node))
                if hooks:
                    self._call(hooks, node)
                continue
            hooks = visit.get(type(node))
            if hooks:
                self._call(hooks, node)
            children = iter_children(node)
            if not children:
                # A leaf (most are names and literals) is left at once: the same hooks with
                # the same `parents`, without the round trip through the stack.
                hooks = leave.get(type(node))
                if hooks:
                    self._call(hooks, node)
                continue
            parents.append(node)
            push((node,))
            children.reverse()
            push_all(children)

    def _call(self, hooks: list[tuple[object, Hook]], node: CSTNode) -> None:
        for owner, hook in hooks:
            if self.failed and id(owner) in self.failed:
                continue
            try:
                hook(node)
            except Exception as exc:  # a broken rule must not take the others down
                self.failed.add(id(owner))
                if self.on_error is None:
                    raise
                self.on_error(owner, exc)
