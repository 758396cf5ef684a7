"""Code that runs once although it sits in a loop or a function that runs many times: the
body of a run-once guard.

A guard is an `if` whose test reads a flag (a name or an attribute: `need_compile`,
`not built`, `self._fn is None`) and whose own body rebinds that same flag
(`need_compile = False`, `self._fn = ...`). The body runs the first time and again only
where other code re-arms the flag (google-deepmind/tapnet recompiles its update step only
when a fork changes its static arguments). Framework-neutral: nothing here knows jax or TF.
"""

from __future__ import annotations

import libcst as cst

from jitlint.python.walker import own_scope_nodes

_FUNCTIONS = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def is_run_once_guard(node: cst.If) -> bool:
    """`if flag:` (or `not flag`, `flag is None`, `flag == None`) whose body rebinds `flag`."""
    flag = _flag(node.test)
    return flag is not None and flag in _rebound(node.body)


def _flag(test: cst.BaseExpression) -> str | None:
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
        test = test.expression  # type: ignore[attr-defined]
    if type(test) is cst.Comparison and len(test.comparisons) == 1:  # type: ignore[attr-defined]
        target = test.comparisons[0]  # type: ignore[attr-defined]
        if type(target.operator) not in (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual):
            return None
        if type(target.comparator) is not cst.Name or target.comparator.value not in (
            "None", "True", "False",
        ):  # fmt: skip
            return None
        test = test.left  # type: ignore[attr-defined]
    return spelled(test)


def spelled(expr: cst.BaseExpression) -> str | None:
    """`a` or `a.b.c` for a name or an attribute chain; None for anything else."""
    kind = type(expr)
    if kind is cst.Name:
        return expr.value  # type: ignore[attr-defined]
    if kind is cst.Attribute:
        owner = spelled(expr.value)  # type: ignore[attr-defined]
        return None if owner is None else f"{owner}.{expr.attr.value}"  # type: ignore[attr-defined]
    return None


def _rebound(body: cst.CSTNode) -> set[str]:
    """The names and attribute chains an `if` body assigns, outside nested functions."""
    found: set[str] = set()
    for node in own_scope_nodes(body, _FUNCTIONS):
        kind = type(node)
        targets: list[cst.BaseExpression] = []
        if kind is cst.Assign:
            targets = [t.target for t in node.targets]  # type: ignore[attr-defined]
        elif kind in (cst.AnnAssign, cst.AugAssign):
            targets = [node.target]  # type: ignore[attr-defined]
        for target in targets:
            name = spelled(target)
            if name is not None:
                found.add(name)
    return found
