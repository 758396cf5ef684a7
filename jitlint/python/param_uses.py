"""Every use of a parameter in its function's body: whether each one passes a test that the
caller states (for example "an argument in an array position"). Conservative by design: a
parameter that is rebound, or read inside a nested scope, fails, since what it holds there is
not what the caller passed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import libcst as cst

# A use: the Name node and its ancestors inside the body, outermost first.
UseTest = Callable[[cst.Name, Sequence[cst.CSTNode]], bool]

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)  # fmt: skip
_BINDERS = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem, cst.AsName,
            cst.Global, cst.Nonlocal, cst.Del, cst.NamedExpr, cst.CompFor,
            cst.MatchAs, cst.MatchStar)  # fmt: skip


def every_use(func: cst.FunctionDef, name: str, test: UseTest) -> bool:
    """Whether `name` is read at least once in `func`'s body and `test` holds at every read;
    False when the body binds `name` again or a nested scope mentions it."""
    found = False
    for node, ancestors in _names(func.body, []):
        if node.value != name or _not_a_read(node, ancestors):
            continue
        if any(isinstance(a, (*_SCOPES, *_BINDERS)) for a in ancestors):
            return False
        if not test(node, ancestors):
            return False
        found = True
    return found


def _not_a_read(node: cst.Name, ancestors: Sequence[cst.CSTNode]) -> bool:
    """`obj.name` and `f(name=...)`: the same spelling, not the variable."""
    parent = ancestors[-1] if ancestors else None
    if type(parent) is cst.Attribute:
        return parent.attr is node
    if type(parent) is cst.Arg:
        return parent.keyword is node
    return False


def _names(
    node: cst.CSTNode, ancestors: list[cst.CSTNode]
) -> Iterator[tuple[cst.Name, list[cst.CSTNode]]]:
    if type(node) is cst.Name:
        yield node, ancestors  # type: ignore[misc]
        return
    ancestors.append(node)
    for child in node.children:
        yield from _names(child, ancestors)
    ancestors.pop()
