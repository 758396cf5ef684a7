"""Small rewrites of one statement or expression that converts a tracer to a Python bool.

- `x or default` on a traced `x` becomes `(x if x is not None else default)`: the idiom
  means "a default when nothing was passed", and `is not None` is decided while tracing.
  Unsafe: a falsy value that is not None (0, an empty list) now stays instead of becoming
  the default.
- `assert <traced test>, msg` becomes `pass` with the assert kept in a comment: the check
  cannot run at trace time. Unsafe: the program no longer checks it (`checkify` or
  `eqx.error_if` check it at run time, and need the function's return value threaded).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def or_default_fix(module: cst.Module, node: cst.BooleanOperation) -> NodeFix | None:
    """`x or d` -> `(x if x is not None else d)`, for `x` a name or attribute (read twice)."""
    if type(node.operator) is not cst.Or or not _plain_reference(node.left):
        return None
    left = module.code_for_node(node.left)
    right = module.code_for_node(node.right)
    if "\n" in right:
        return None
    return NodeFix(
        "unsafe",
        f"use the default only when `{left}` is None: `{left} if {left} is not None else ...`",
        ((node, f"({left} if {left} is not None else {right})"),),
    )


def _plain_reference(expr: cst.BaseExpression) -> bool:
    if expr.lpar:
        return False
    if type(expr) is cst.Name:
        return True
    return type(expr) is cst.Attribute and _plain_reference(expr.value)


def assert_removal_fix(module: cst.Module, path: Sequence[cst.CSTNode]) -> NodeFix | None:
    """The innermost `assert` on `path` (within the same function) replaced by `pass` and a
    comment holding it; only a one-line assert alone on its line."""
    for index in range(len(path) - 1, 0, -1):
        node = path[index]
        if isinstance(node, _SCOPES):
            return None
        if type(node) is not cst.Assert:
            continue
        line = path[index - 1]
        if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
            return None
        code = module.code_for_node(node).strip()
        if "\n" in code or code.endswith(";"):
            return None
        return NodeFix(
            "unsafe",
            "remove the assert: it cannot check a traced value (use checkify or "
            "eqx.error_if to check it at run time)",
            ((node, f"pass  # a check on a traced value, removed: {code}"),),
        )
    return None
