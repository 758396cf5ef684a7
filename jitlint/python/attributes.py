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
    for item in cls.body.body:  # type: ignore[attr-defined]
        if type(item) is not cst.FunctionDef:
            continue
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [
            (item.body, (*path, cls, cls.body, item))
        ]
        while stack:
            node, parents = stack.pop()
            here = (*parents, node)
            kind = type(node)
            if kind is cst.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    t = target.target
                    if (
                        type(t) is cst.Attribute
                        and type(t.value) is cst.Name
                        and t.value.value == "self"
                        and t.attr.value == attr
                    ):
                        out.append((node.value, here))  # type: ignore[attr-defined]
                continue
            if kind in _FUNCTIONS or kind is cst.ClassDef:
                continue
            stack.extend((child, here) for child in iter_children(node))
    return out


def assigned_only_plainly(cls: cst.ClassDef, attr: str) -> bool:
    """Every assignment of `self.<attr>` in the class is a plain `self.attr = value`: no
    `+=`, annotated or tuple target, and no `setattr` (those would add values that
    `self_assignments` does not list)."""
    stack: list[cst.CSTNode] = [cls.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.AugAssign or kind is cst.AnnAssign:
            if _is_self_attr(node.target, attr):  # type: ignore[attr-defined]
                return False
        elif kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) in (cst.Tuple, cst.List) and any(
                    _is_self_attr(e.value, attr)
                    for e in target.target.elements  # type: ignore[attr-defined]
                ):
                    return False
        elif kind is cst.Call and type(node.func) is cst.Name and node.func.value == "setattr":  # type: ignore[attr-defined]
            return False
        stack.extend(iter_children(node))
    return True


def _is_self_attr(expr: cst.CSTNode, attr: str) -> bool:
    return (
        type(expr) is cst.Attribute
        and type(expr.value) is cst.Name
        and expr.value.value == "self"
        and expr.attr.value == attr
    )
