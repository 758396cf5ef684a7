"""One traversal over a libcst tree that calls every rule's hooks.

libcst's own visitor rebuilds each node while it walks (about 0.45x a parse on its own); reading
the dataclass fields directly costs a tenth of that. Whitespace, parentheses, commas and operator
tokens are never visited: no rule looks at them as nodes of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
    names = _child_fields.get(node_type)
    if names is None:
        names = tuple(
            name
            for name in node_type.__dataclass_fields__  # type: ignore[attr-defined]
            if name not in _SKIPPED_FIELDS and not name.startswith("whitespace")
        )
        _child_fields[node_type] = names
    return names


def iter_children(node: CSTNode) -> list[CSTNode]:
    children: list[CSTNode] = []
    node_types = NODE_TYPES
    for name in child_fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind in node_types:
            children.append(value)
        elif kind is tuple or kind is list:
            children.extend(item for item in value if type(item) in node_types)
    return children


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
        # Iterative, so deeply nested code cannot exhaust Python's recursion limit.
        # A stack entry is (node, entering): leave hooks run when the node comes back off.
        stack: list[tuple[CSTNode, bool]] = [(root, True)]
        while stack:
            node, entering = stack.pop()
            kind = type(node).__name__
            if not entering:
                parents.pop()
                hooks = leave.get(kind)
                if hooks:
                    self._call(hooks, node)
                continue
            hooks = visit.get(kind)
            if hooks:
                self._call(hooks, node)
            parents.append(node)
            stack.append((node, False))
            children = iter_children(node)
            stack.extend((child, True) for child in reversed(children))

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
