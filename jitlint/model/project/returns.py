"""What a module's functions return, for the modules that call them from traced code: a
function that returns a Python list (`-> list[...]`, or only `return [...]` / a name bound
only to lists) gives its caller a list, so indexing that result with a tracer fails
(TracerIntegerConversionError) where an array would not.

The facts travel as the TensorFlow model's export/import records (tf_records.py), with a
"jax:" prefix and their own import kind, so that neither model reads the other's.
"""

from __future__ import annotations

import libcst as cst

from jitlint.model.domain.names import Names
from jitlint.model.project.tf_records import TfRecord

LIST_FACT = "jax:returns-list"
# Every return is the result of a JAX operation (`return jnp.all(x)`, `return ok and
# jnp.all(x)`): called from traced code, it returns a tracer whatever its arguments.
ARRAY_FACT = "jax:returns-array"
_JAX_OPS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")
IMPORT_KIND = "jax-import"
_LIST_ANNOTATIONS = frozenset({"builtins.list", "typing.List"})
_LIST_CALLS = frozenset({"builtins.list", "builtins.sorted"})


def exports(names: Names) -> list[TfRecord]:
    """One "export" record per top-level function that returns a list."""
    out = []
    module = names.module
    for statement in module.body:
        if type(statement) is not cst.FunctionDef:
            continue
        fact = _returns(names, statement, [module])
        if fact is not None:
            out.append(TfRecord(statement.name.value, 0, "export", fact))
    return out


def imports(targets: list[tuple[str, int]]) -> list[TfRecord]:
    """ "jax-import" records for the imported functions traced code calls: the runner
    answers with the facts their modules export."""
    return [TfRecord(target, line, IMPORT_KIND) for target, line in sorted(set(targets))]


def _returns(names: Names, func: cst.FunctionDef, path: list[cst.CSTNode]) -> str | None:
    if func.asynchronous is not None or any(True for _ in func.decorators):
        return None
    returns = func.returns
    if returns is not None:
        head = returns.annotation
        if type(head) is cst.Subscript:
            head = head.value  # type: ignore[attr-defined]
        if type(head) in (cst.Name, cst.Attribute):
            qualnames = names.qualified_names(head, path)
            if qualnames and qualnames <= _LIST_ANNOTATIONS:
                return LIST_FACT
    body = func.body
    last = body.body[-1] if type(body) is cst.IndentedBlock and body.body else None
    if type(last) is not cst.SimpleStatementLine or type(last.body[0]) is not cst.Return:  # type: ignore[attr-defined]
        return None  # cheap pre-test: most functions end otherwise
    body_path = [*path, func, func.body]
    found = _Returns()
    func.body.visit(found)
    if not found.values or found.nested:
        return None
    if all(_is_list(names, v, body_path, found.assigned) for v in found.values):
        return LIST_FACT
    if all(_is_jax_op(names, v, body_path) for v in found.values):
        return ARRAY_FACT
    return None


def _is_jax_op(names: Names, value: cst.BaseExpression, path: list[cst.CSTNode]) -> bool:
    kind = type(value)
    if kind is cst.BooleanOperation and type(value.operator) is cst.And:  # type: ignore[attr-defined]
        return _is_jax_op(names, value.right, path)  # type: ignore[attr-defined]
    if kind is cst.Call and type(value.func) is cst.Attribute:  # type: ignore[attr-defined]
        qualnames = names.qualified_names(value.func, path)  # type: ignore[attr-defined]
        return bool(qualnames) and all(q.startswith(_JAX_OPS) for q in qualnames)
    return False


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []
        self.assigned: dict[str, list[cst.BaseExpression]] = {}
        self.nested = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested def's returns are its own

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            self.nested = True  # returns None too
        else:
            self.values.append(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if type(target.target) is cst.Name:
                self.assigned.setdefault(target.target.value, []).append(node.value)  # type: ignore[attr-defined]

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if type(node.target) is cst.Name:
            self.assigned.setdefault(node.target.value, []).append(node.value)  # type: ignore[attr-defined]


def _is_list(
    names: Names,
    value: cst.BaseExpression,
    path: list[cst.CSTNode],
    assigned: dict[str, list[cst.BaseExpression]],
    depth: int = 0,
) -> bool:
    kind = type(value)
    if kind in (cst.List, cst.ListComp):
        return True
    if kind is cst.Call and type(value.func) is cst.Name:  # type: ignore[attr-defined]
        qualnames = names.qualified_names(value.func, path)  # type: ignore[attr-defined]
        return bool(qualnames) and qualnames <= _LIST_CALLS
    if kind is cst.Name and depth == 0:
        bound = assigned.get(value.value)  # type: ignore[attr-defined]
        return bool(bound) and all(_is_list(names, v, path, {}, 1) for v in bound)
    return False
