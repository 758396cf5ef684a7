"""Where a class's attributes are assigned: `attr = value` in its body, `self.attr = value`
in its methods. Each value comes with its path from the module (given the path above the
class), so that a model can read it where it was written.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.python.walker import iter_children

_FUNCTIONS = (cst.FunctionDef, cst.Lambda)


def class_body_assignments(
    cls: cst.ClassDef, attr: str, path: Sequence[cst.CSTNode]
) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
    """The values `attr = value` assigns in the class body."""
    out = []
    for item in cls.body.body:  # type: ignore[attr-defined]
        if type(item) is not cst.SimpleStatementLine:
            continue
        for small in item.body:
            if type(small) is cst.Assign and any(
                type(t.target) is cst.Name and t.target.value == attr for t in small.targets
            ):
                out.append((small.value, (*path, cls, cls.body, item, small)))
    return out


def self_assignments(
    cls: cst.ClassDef, attr: str, path: Sequence[cst.CSTNode]
) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
    """The values `self.<attr> = value` assigns in the class's methods (and the class
    body's `attr = value`)."""
    out = class_body_assignments(cls, attr, path)
    prefix = tuple(path)
    out.extend((value, (*prefix, *here)) for value, here in _index(cls).plain.get(attr, ()))
    return out


def assigned_only_plainly(cls: cst.ClassDef, attr: str) -> bool:
    """Every assignment of `self.<attr>` in the class is a plain `self.attr = value`: no
    `+=`, annotated or tuple target, and no `setattr` (those would add values that
    `self_assignments` does not list)."""
    index = _index(cls)
    return not index.setattr and attr not in index.other


def self_attr_name(expr: cst.CSTNode) -> str | None:
    """`attr` when `expr` is `self.attr`."""
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":  # type: ignore[attr-defined]
        return expr.attr.value  # type: ignore[attr-defined]
    return None


def assigned_anywhere(cls: cst.ClassDef, attr: str) -> list[cst.CSTNode]:
    """The values `self.<attr> = value` and `self.<attr>: T = value` assign anywhere in the
    class (functions nested in its methods too, nested classes not)."""
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [cls.body]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Assign:
            for target in current.targets:  # type: ignore[attr-defined]
                if self_attr_name(target.target) == attr:
                    found.append(current.value)  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign and self_attr_name(current.target) == attr and current.value:  # type: ignore[attr-defined]
            found.append(current.value)  # type: ignore[attr-defined]
        if kind is cst.ClassDef:
            continue
        stack.extend(iter_children(current))
    return found


class _Index:
    """One walk of a class: its methods' plain `self.attr = value` assignments (paths from
    the class down) and the attributes assigned in other ways."""

    def __init__(self, cls: cst.ClassDef) -> None:
        self.plain: dict[str, list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]] = {}
        self.other: set[str] = set()
        self.setattr = False
        for item in cls.body.body:  # type: ignore[attr-defined]
            if type(item) is cst.FunctionDef:
                self._method(item.body, (cls, cls.body, item))
        self._others(cls.body)

    def _method(self, body: cst.CSTNode, parents: tuple[cst.CSTNode, ...]) -> None:
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(body, parents)]
        while stack:
            node, above = stack.pop()
            here = (*above, node)
            kind = type(node)
            if kind is cst.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    name = self_attr_name(target.target)
                    if name is not None:
                        self.plain.setdefault(name, []).append((node.value, here))  # type: ignore[attr-defined]
                continue
            if kind in _FUNCTIONS or kind is cst.ClassDef:
                continue
            stack.extend((child, here) for child in iter_children(node))

    def _others(self, body: cst.CSTNode) -> None:
        stack: list[cst.CSTNode] = [body]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.AugAssign or kind is cst.AnnAssign:
                name = self_attr_name(node.target)  # type: ignore[attr-defined]
                if name is not None:
                    self.other.add(name)
            elif kind is cst.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target.target) in (cst.Tuple, cst.List):
                        for element in target.target.elements:  # type: ignore[attr-defined]
                            name = self_attr_name(element.value)
                            if name is not None:
                                self.other.add(name)
            elif kind is cst.Call and type(node.func) is cst.Name and node.func.value == "setattr":  # type: ignore[attr-defined]
                self.setattr = True
            stack.extend(iter_children(node))


# The classes indexed lately, by id, with the class itself (an id can be reused once a tree
# is freed); bounded, so a long-running server does not keep old trees alive, and emptied
# when a file's lint ends (`forget_indexes`).
_INDEXES: dict[int, tuple[cst.ClassDef, _Index]] = {}
_MAX_INDEXES = 512


def forget_indexes() -> None:
    """Drop every class index. Each holds its class, so the classes of a linted file's tree
    would outlive its lint: a run over many files kept up to 512 class subtrees alive
    across files, which every pass of the cycle collector then scanned (bench/README.md,
    "Round 3 session 9, the per-file lint")."""
    _INDEXES.clear()


def _index(cls: cst.ClassDef) -> _Index:
    found = _INDEXES.get(id(cls))
    if found is not None and found[0] is cls:
        return found[1]
    if len(_INDEXES) >= _MAX_INDEXES:
        _INDEXES.clear()
    index = _Index(cls)
    _INDEXES[id(cls)] = (cls, index)
    return index


def reset_earlier_in_function(path: Sequence[cst.CSTNode], attr: str) -> bool:
    """`self.<attr> = ...` is a statement of the innermost function in `path`, at the top of
    its body and before the statement that holds the path's end: every run of the function
    starts the attribute afresh (a per-call scratch value), whatever it held before."""
    for index in range(len(path) - 1, 0, -1):
        if type(path[index]) is not cst.FunctionDef:
            continue
        body = path[index].body  # type: ignore[attr-defined]
        holder = path[index + 2] if index + 2 < len(path) else None
        for statement in getattr(body, "body", ()):
            if statement is holder:
                return False
            if type(statement) is not cst.SimpleStatementLine:
                continue
            for small in statement.body:
                if type(small) is cst.Assign and any(
                    self_attr_name(t.target) == attr for t in small.targets
                ):
                    return True
        return False
    return False


def read_only_into_text(cls: cst.ClassDef, attr: str) -> bool:
    """Every read of `self.<attr>` in the class's methods (one at least) goes into text:
    `str(...)`, `"...".format(...)`, an f-string or `%` formatting, so the value only ever
    names or labels something (`name = "{}".format(self.call_id)`). Its updates
    (`self.attr += 1`) are not reads."""
    found = False
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(cls.body, ())]
    while stack:
        node, above = stack.pop()
        if self_attr_name(node) == attr:
            parent = above[-1] if above else None
            if type(parent) is cst.AugAssign and parent.target is node:  # type: ignore[attr-defined]
                continue
            if type(parent) in (cst.AssignTarget, cst.AnnAssign):
                continue  # a plain assignment: the reset, not a read
            if not any(
                _makes_text(a, child) for a, child in zip(above, (*above[1:], node), strict=True)
            ):
                return False
            found = True
            continue
        stack.extend((child, (*above, node)) for child in iter_children(node))
    return found


def _makes_text(node: cst.CSTNode, child: cst.CSTNode) -> bool:
    """`child` is formatted into text by `node`."""
    kind = type(node)
    if kind is cst.FormattedStringExpression:
        return True
    if kind is cst.Call:
        func = node.func  # type: ignore[attr-defined]
        if child is func:
            return False
        if type(func) is cst.Name and func.value == "str":  # type: ignore[attr-defined]
            return True
        return (
            type(func) is cst.Attribute
            and func.attr.value == "format"  # type: ignore[attr-defined]
            and type(func.value) in (cst.SimpleString, cst.ConcatenatedString)  # type: ignore[attr-defined]
        )
    if kind is cst.BinaryOperation and type(node.operator) is cst.Modulo:  # type: ignore[attr-defined]
        return child is node.right and type(node.left) in (  # type: ignore[attr-defined]
            cst.SimpleString,
            cst.ConcatenatedString,
        )
    return False


def is_super_init(call: cst.Call) -> bool:
    """`super().__init__(...)` (or `super(Cls, self).__init__(...)`)."""
    func = call.func
    return (
        type(func) is cst.Attribute
        and func.attr.value == "__init__"
        and type(func.value) is cst.Call
        and type(func.value.func) is cst.Name
        and func.value.func.value == "super"
    )


def read_again(module: cst.Module, attr: str, func: cst.CSTNode, store: cst.CSTNode) -> bool:
    """Whether a value `store` (a statement of `func`) sets as `<obj>.<attr>` can be read
    again once `func` has returned: `<x>.<attr>` is read somewhere in the module outside
    `func`, or in `func` before `store` (the next run reads what the last one left). An
    update (`x.attr += 1`) reads; a plain assignment does not. Any receiver counts: the
    question is whether anything reads such an attribute at all."""
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(module, None)]
    while stack:
        node, parent = stack.pop()
        if node is func:
            if _read_before(node, attr, store):
                return True
            continue
        if _reads(node, parent, attr):
            return True
        stack.extend((child, node) for child in iter_children(node))
    return False


def _read_before(func: cst.CSTNode, attr: str, store: cst.CSTNode) -> bool:
    """A read of `.<attr>` in `func` before `store`, in source order."""
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(func, None)]
    while stack:
        node, parent = stack.pop()
        if node is store:
            return False
        if _reads(node, parent, attr):
            return True
        stack.extend((child, node) for child in reversed(iter_children(node)))
    return False


def _reads(node: cst.CSTNode, parent: cst.CSTNode | None, attr: str) -> bool:
    if type(node) is not cst.Attribute or node.attr.value != attr:  # type: ignore[attr-defined]
        return False
    return type(parent) not in (cst.AssignTarget, cst.AnnAssign)
