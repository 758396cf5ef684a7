"""One traversal over a libcst tree that calls every rule's hooks.

libcst's own visitor rebuilds each node while it walks (about 0.45x a parse on its own); reading
the dataclass fields directly costs a tenth of that. Whitespace, parentheses, commas and operator
tokens are never visited: no rule looks at them as nodes of their own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from typing import Any

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
_getters: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


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


def _no_children(node: CSTNode) -> tuple[Any, ...]:
    return ()


def _getter(node_type: type) -> Callable[[Any], tuple[Any, ...]]:
    """One C call that reads every child field of a node of `node_type` (`attrgetter`);
    iter_children runs for every node of every traversal, so its Python overhead counts."""
    getter = _getters.get(node_type)
    if getter is None:
        names = child_fields(node_type)
        if len(names) >= 2:
            getter = attrgetter(*names)
        elif names:
            # attrgetter of one name returns the value, not a 1-tuple; `__class__` pads it
            # (a class is neither a node nor a sequence, so it is skipped).
            getter = attrgetter(names[0], "__class__")
        else:
            getter = _no_children
        _getters[node_type] = getter
    return getter


def iter_children(node: CSTNode) -> list[CSTNode]:
    """The node's children in source order (a new list; callers may change it)."""
    children: list[CSTNode] = []
    node_types = NODE_TYPES
    for value in (_getters.get(type(node)) or _getter(type(node)))(node):
        kind = type(value)
        if kind in node_types:
            children.append(value)
        elif kind is tuple or kind is list:
            # Every item of a libcst sequence field is a node.
            children.extend(value)
    return children


def descendants(root: CSTNode) -> Iterator[CSTNode]:
    """`root` and every node below it, depth first (no order promised beyond that)."""
    stack = [root]
    while stack:
        node = stack.pop()
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
            for attr in dir(type(listener)):
                if attr.startswith("visit_"):
                    self.visit.setdefault(attr[6:], []).append((listener, getattr(listener, attr)))
                elif attr.startswith("leave_"):
                    self.leave.setdefault(attr[6:], []).append((listener, getattr(listener, attr)))
        self.parents: list[CSTNode] = []
        self.on_error = on_error
        self.failed: set[int] = set()

    def walk(self, root: CSTNode) -> None:
        visit, leave, parents = self.visit, self.leave, self.parents
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
                hooks = leave.get(type(node).__name__)
                if hooks:
                    self._call(hooks, node)
                continue
            hooks = visit.get(type(node).__name__)
            if hooks:
                self._call(hooks, node)
            parents.append(node)
            push((node,))
            children = iter_children(node)
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
