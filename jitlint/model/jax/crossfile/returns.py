"""What a module's functions return, for the modules that call them from traced code: a
function that returns a Python list (`-> list[...]`, or only `return [...]` / a name bound
only to lists) gives its caller a list, so indexing that result with a tracer fails
(TracerIntegerConversionError) where an array would not; one whose result is a type test of
its parameters (`return not isinstance(x, Tracer)`) narrows its caller's arguments.

The facts travel as the TensorFlow model's export/import records (model/tf_records.py), with a
"jax:" prefix and their own import kind, so that neither model reads the other's.
"""

from __future__ import annotations

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.model.domain.plugins import CallArgs
from jitlint.model.domain.values import PLAIN_OBJECT, U, plain_python_object
from jitlint.model.tf_records import TfRecord
from jitlint.python.names import Names
from jitlint.python.predicates import predicate_of
from jitlint.python.walker import iter_children

LIST_FACT = "jax:returns-list"
# Every return is the result of a JAX operation (`return jnp.all(x)`, `return ok and
# jnp.all(x)`): called from traced code, it returns a tracer whatever its arguments.
ARRAY_FACT = "jax:returns-array"
_JAX_OPS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")
# The function's return value is a type test of its parameters (python/predicates.py): the
# summary follows the prefix, so a caller in another file narrows its arguments.
PREDICATE_FACT = "jax:predicate:"
IMPORT_KIND = "jax-import"
# A module-level name bound to a bare `object()` (a sentinel: `sentinel = object()`, also
# through a plug-in's call that returns its argument, equinox's `doc_repr(object(), ...)`).
# A JAX array compared with it by `==` answers by identity, a Python bool.
PLAIN_OBJECT_FACT = "jax:plain-object"
_LIST_ANNOTATIONS = frozenset({"builtins.list", "typing.List"})
LIST_CALLS = frozenset({"builtins.list", "builtins.sorted"})  # calls that return a list


def exports(names: Names) -> list[TfRecord]:
    """One "export" record per top-level function that returns a list, a JAX result or a
    type test of its parameters."""
    out = []
    module = names.module
    for statement in module.body:
        if type(statement) is not cst.FunctionDef:
            continue
        fact = _returns(names, statement, [module])
        if fact is None:
            predicate = predicate_of(names, statement, [module])
            fact = PREDICATE_FACT + predicate.encode() if predicate is not None else None
        if fact is not None:
            out.append(TfRecord(statement.name.value, 0, "export", fact))
    return out


def plain_object_exports(names: Names) -> list[TfRecord]:
    """One "export" record per module-level name bound (once) to a bare `object()`."""
    module = names.module
    out = []
    for statement in module.body:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            kind = type(small)
            if kind is cst.Assign and len(small.targets) == 1:  # type: ignore[attr-defined]
                target, value = small.targets[0].target, small.value  # type: ignore[attr-defined]
            elif kind is cst.AnnAssign and small.value is not None:  # type: ignore[attr-defined]
                target, value = small.target, small.value  # type: ignore[attr-defined]
            else:
                continue
            if type(target) is not cst.Name or not _plain_object(names, value, [module]):
                continue
            bindings = names.lookup(target.value, [module])
            if bindings is not None and len(bindings) == 1:
                out.append(TfRecord(target.value, 0, "export", PLAIN_OBJECT_FACT))
    return out


def _plain_object(names: Names, expr: cst.BaseExpression, path: list[cst.CSTNode]) -> bool:
    if type(expr) is not cst.Call:
        return False
    qualnames = names.qualified_names(expr.func, path)  # type: ignore[attr-defined]
    if len(qualnames) != 1:
        return False
    qualname = next(iter(qualnames))
    if qualname == "builtins.object":
        return not expr.args  # type: ignore[attr-defined]
    hook = plugins.call_hook(qualname)
    if hook is None or any(a.star for a in expr.args):  # type: ignore[attr-defined]
        return False
    args = [
        (
            a.keyword.value if a.keyword is not None else None,
            PLAIN_OBJECT if _plain_object(names, a.value, path) else U,
        )
        for a in expr.args  # type: ignore[attr-defined]
    ]
    result = hook(CallArgs(args, False, lambda i: None))
    return result is not None and plain_python_object(result)


def default_imports(names: Names) -> list[TfRecord]:
    """ "jax-import" records for the imported names that a top-level def's (or a method's)
    parameters default to (`state=sentinel`): the sentinel idiom, whose comparisons
    (`state == sentinel`) need to know what the name is."""
    module = names.module
    found: set[str] = set()
    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            funcs = [statement]
        elif type(statement) is cst.ClassDef and type(statement.body) is cst.IndentedBlock:
            funcs = [f for f in statement.body.body if type(f) is cst.FunctionDef]
        else:
            continue
        for func in funcs:
            p = func.params
            for param in (*p.posonly_params, *p.params, *p.kwonly_params):
                default = param.default
                if type(default) is not cst.Name:
                    continue
                bindings = names.lookup(default.value, [module])
                if bindings and len(bindings) == 1 and bindings[0].kind == "import":
                    qualname = bindings[0].qualname
                    if qualname and "." in qualname:
                        found.add(qualname)
    return [TfRecord(target, 0, IMPORT_KIND) for target in sorted(found)]


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
    found = Returns()
    found.scan(func.body)
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


class Returns:
    """The return values and the names' assigned values of one function body, walked with
    `iter_children` (libcst's own `visit` rebuilds every node it passes, several times the
    cost, and this runs on every file of a project)."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []
        self.assigned: dict[str, list[cst.BaseExpression]] = {}
        self.nested = False

    def scan(self, body: cst.CSTNode) -> None:
        stack = [body]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.FunctionDef or kind is cst.Lambda:
                continue  # a nested def's returns are its own
            if kind is cst.Return:
                value = node.value  # type: ignore[attr-defined]
                if value is None:
                    self.nested = True  # returns None too
                else:
                    self.values.append(value)
            elif kind is cst.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target.target) is cst.Name:
                        self._assign(target.target.value, node.value)  # type: ignore[attr-defined]
            elif kind is cst.AugAssign and type(node.target) is cst.Name:  # type: ignore[attr-defined]
                self._assign(node.target.value, node.value)  # type: ignore[attr-defined]
            stack.extend(reversed(iter_children(node)))

    def _assign(self, name: str, value: cst.BaseExpression) -> None:
        self.assigned.setdefault(name, []).append(value)


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
        return bool(qualnames) and qualnames <= LIST_CALLS
    if kind is cst.Name and depth == 0:
        bound = assigned.get(value.value)  # type: ignore[attr-defined]
        return bool(bound) and all(_is_list(names, v, path, {}, 1) for v in bound)
    return False
