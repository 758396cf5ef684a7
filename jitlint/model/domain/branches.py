"""What the two branches of an `if` leave behind: the names each binds, and what each
returns, compared the way a compiler that traces both branches compares them.

TensorFlow's autograph turns an `if` on a tensor into `tf.cond`, which traces both branches
and needs from them the same outputs: every name live after the `if` bound in both, none of
them `None`, each of the same nested structure, and a return in both or in neither (hazard
T16; observed, TF 2.21: "'y' must also be initialized in the else branch", "'y' is None at
the end of the else branch", "'y' must have the same nested structure in the main and else
branches", "the else branch must also have a return statement"). Framework-neutral syntax:
the caller decides which `if` is converted.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.python.walker import iter_children

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass(frozen=True)
class Mismatch:
    """A difference between the branches: `node` is where it shows, `name` the variable
    (`None` for the function's return value), `kind` one of "unbound" (bound in one
    branch only), "none" (`None` in one branch only), "structure" (containers of other
    lengths or keys) or "no-return" (a return in one branch only)."""

    node: cst.CSTNode
    name: str | None
    kind: str


def branch_mismatches(node: cst.If, func: cst.FunctionDef) -> list[Mismatch]:
    """The mismatches between the branches of `node`, an `if` in the body of `func`."""
    found = _name_mismatches(node, func)
    if node in func.body.body:  # type: ignore[operator]
        found += _return_mismatches(node, func)
    return found


# ----- names ----------------------------------------------------------------------------


def _top_assignments(block: cst.CSTNode | None) -> dict[str, cst.BaseExpression]:
    """The last value each plain name is given by an assignment written directly in the
    block (not in a nested statement: those are bound only on some paths)."""
    found: dict[str, cst.BaseExpression] = {}
    for statement in getattr(block, "body", ()):
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Assign:
                for target in small.targets:
                    if type(target.target) is cst.Name:
                        found[target.target.value] = small.value
            elif (
                type(small) is cst.AnnAssign
                and small.value is not None
                and type(small.target) is cst.Name
            ):
                found[small.target.value] = small.value
    return found


def _stored_anywhere(block: cst.CSTNode | None) -> set[str]:
    return {name for kind, name, _ in _events(block) if kind == "store"} if block else set()


def _name_mismatches(node: cst.If, func: cst.FunctionDef) -> list[Mismatch]:
    orelse = node.orelse
    # An `elif` is an `if` of its own: it binds on some of its paths only.
    other_values = _top_assignments(orelse.body) if type(orelse) is cst.Else else {}
    main_values = _top_assignments(node.body)
    other_stored, main_stored = _stored_anywhere(orelse), _stored_anywhere(node.body)
    before, after = _around(func, node)
    # A branch that may leave (return, raise, break, continue) need not bind what the
    # code after the `if` reads: autograph guards that code instead.
    main_leaves, other_leaves = _leaves(node.body), _leaves(orelse)
    found: list[Mismatch] = []
    for name, value in main_values.items():
        if after.get(name) != "load":
            continue  # not live after the `if`: not an output of the converted branches
        if name not in other_stored and name not in before:
            if not other_leaves:
                found.append(Mismatch(value, name, "unbound"))
            continue
        if name not in other_stored and not _is_none(value) and _none_elsewhere(func, node, name):
            # The else branch keeps the value from before the `if`: `None`.
            found.append(Mismatch(value, name, "none"))
            continue
        twin = other_values.get(name)
        if twin is not None:
            kind = _differ(value, twin)
            if kind:
                found.append(Mismatch(value, name, kind))
    for name, value in other_values.items():
        live = after.get(name) == "load"
        if live and name not in main_stored and name not in before and not main_leaves:
            found.append(Mismatch(value, name, "unbound"))
    return found


def _leaves(node: cst.CSTNode | None) -> bool:
    """A `return`, `raise`, `break` or `continue` in `node` (outside nested scopes)."""
    if node is None:
        return False
    if type(node) in (cst.Return, cst.Raise, cst.Break, cst.Continue):
        return True
    if type(node) in _SCOPES:
        return False
    return any(_leaves(child) for child in iter_children(node))


def _none_elsewhere(func: cst.FunctionDef, node: cst.If, name: str) -> bool:
    """Every binding of `name` in `func` outside `node` is a plain `name = None` (and
    there is one; a parameter is a binding too)."""
    params = func.params
    if any(p.name.value == name for p in (*params.posonly_params, *params.params)):
        return False
    values: list[cst.BaseExpression | None] = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        current = stack.pop()
        if current is node or type(current) in _SCOPES:
            continue
        if type(current) is cst.Assign and any(
            type(t.target) is cst.Name and t.target.value == name for t in current.targets
        ):
            values.append(current.value)
            continue
        stack.extend(iter_children(current))
    stores = sum(1 for kind, n, _ in _events(func.body) if kind == "store" and n == name)
    inside = sum(1 for kind, n, _ in _events(node) if kind == "store" and n == name)
    return bool(values) and stores - inside == len(values) and all(map(_is_none, values))


def _differ(a: cst.BaseExpression, b: cst.BaseExpression) -> str | None:
    none_a, none_b = _is_none(a), _is_none(b)
    if none_a != none_b:
        return "none"
    if type(a) in (cst.Tuple, cst.List) and type(b) in (cst.Tuple, cst.List):
        if _starred(a) or _starred(b):
            return None
        return "structure" if len(a.elements) != len(b.elements) else None  # type: ignore[attr-defined]
    if type(a) is cst.Dict and type(b) is cst.Dict:
        keys_a, keys_b = _literal_keys(a), _literal_keys(b)
        return "structure" if None not in (keys_a, keys_b) and keys_a != keys_b else None
    return None


def _is_none(expr: cst.BaseExpression | None) -> bool:
    return expr is None or (type(expr) is cst.Name and expr.value == "None")


def _starred(expr: cst.CSTNode) -> bool:
    return any(type(e) is cst.StarredElement for e in expr.elements)  # type: ignore[attr-defined]


def _literal_keys(expr: cst.Dict) -> frozenset[str] | None:
    keys = []
    for element in expr.elements:
        if type(element) is not cst.DictElement or type(element.key) is not cst.SimpleString:
            return None
        keys.append(element.key.value)
    return frozenset(keys)


def _around(func: cst.FunctionDef, node: cst.CSTNode) -> tuple[set[str], dict[str, str]]:
    """The names bound before `node` (parameters included), and for each name the first
    use after it, "load" or "store", in the order the function evaluates its body."""
    params = func.params
    before = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if type(star) is cst.Param:
            before.add(star.name.value)
    after: dict[str, str] = {}
    where = "before"
    for kind, name, at in _events(func.body, node):
        if at is node:
            where = "inside" if kind == "start" else "after"
        elif where == "before" and kind == "store":
            before.add(name)
        elif where == "after":
            after.setdefault(name, kind)
    return before, after


def read_after(func: cst.FunctionDef, node: cst.CSTNode, name: str) -> bool:
    """`name` is read after `node` (a statement of `func`) before anything rebinds it."""
    return _around(func, node)[1].get(name) == "load"


def _events(
    node: cst.CSTNode | None, mark: cst.CSTNode | None = None
) -> Iterator[tuple[str, str, cst.CSTNode | None]]:
    """("load" | "store", name, None) in evaluation order, nested scopes left out but their
    names stored; ("start" | "end", "", mark) where the walk enters and leaves `mark`."""
    if node is None:
        return
    if node is mark:
        yield "start", "", node
    kind = type(node)
    if kind is cst.Name:
        yield "load", node.value, None  # type: ignore[attr-defined]
    elif kind in _SCOPES:
        if kind is not cst.Lambda:
            yield "store", node.name.value, None  # type: ignore[attr-defined]
    elif kind is cst.Attribute or kind is cst.Arg:
        yield from _events(node.value, mark)  # type: ignore[attr-defined]
    elif kind is cst.Assign:
        yield from _events(node.value, mark)  # type: ignore[attr-defined]
        for target in node.targets:  # type: ignore[attr-defined]
            yield from _stores(target.target, mark)
    elif kind is cst.AnnAssign:
        yield from _events(node.value, mark)  # type: ignore[attr-defined]
        yield from _stores(node.target, mark)  # type: ignore[attr-defined]
    elif kind is cst.AugAssign:
        yield from _events(node.target, mark)  # type: ignore[attr-defined]
        yield from _events(node.value, mark)  # type: ignore[attr-defined]
        yield from _stores(node.target, mark)  # type: ignore[attr-defined]
    elif kind is cst.For:
        yield from _events(node.iter, mark)  # type: ignore[attr-defined]
        yield from _stores(node.target, mark)  # type: ignore[attr-defined]
        yield from _events(node.body, mark)  # type: ignore[attr-defined]
        yield from _events(node.orelse, mark)  # type: ignore[attr-defined]
    elif kind is cst.AsName:
        yield from _stores(node.name, mark)  # type: ignore[attr-defined]
    elif kind in (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.CompFor):
        if kind is cst.CompFor:
            yield from _events(node.iter, mark)  # type: ignore[attr-defined]
            for test in node.ifs:  # type: ignore[attr-defined]
                yield from _events(test, mark)
            yield from _events(node.inner_for_in, mark)  # type: ignore[attr-defined]
    else:
        for child in iter_children(node):
            yield from _events(child, mark)
    if node is mark:
        yield "end", "", node


def _stores(
    target: cst.CSTNode, mark: cst.CSTNode | None
) -> Iterator[tuple[str, str, cst.CSTNode | None]]:
    kind = type(target)
    if kind is cst.Name:
        yield "store", target.value, None  # type: ignore[attr-defined]
    elif kind in (cst.Tuple, cst.List):
        for element in target.elements:  # type: ignore[attr-defined]
            yield from _stores(element.value, mark)
    elif kind is cst.StarredElement:
        yield from _stores(target.value, mark)  # type: ignore[attr-defined]
    else:  # `x.a = ...`, `x[i] = ...` read `x`
        yield from _events(target, mark)


# ----- returns --------------------------------------------------------------------------


def _return(block: cst.CSTNode | None) -> cst.Return | None:
    """The `return` that ends the block, if its last statement is one."""
    statements: Sequence[cst.CSTNode] = getattr(block, "body", ())
    if not statements or type(statements[-1]) is not cst.SimpleStatementLine:
        return None
    last = statements[-1].body[-1]  # type: ignore[attr-defined]
    return last if type(last) is cst.Return else None


def _last_small(statement: cst.CSTNode) -> cst.CSTNode | None:
    if type(statement) is not cst.SimpleStatementLine:
        return None
    return statement.body[-1]


def _exits(node: cst.CSTNode | None) -> bool:
    """A `return`, `raise` or loop anywhere in `node` (outside nested scopes): the code
    may leave the function some other way than falling off its end."""
    if node is None:
        return False
    kind = type(node)
    if kind in (cst.Return, cst.Raise, cst.While, cst.For, cst.Try, cst.With):
        return True
    if kind in _SCOPES:
        return False
    return any(_exits(child) for child in iter_children(node))


def _return_mismatches(node: cst.If, func: cst.FunctionDef) -> list[Mismatch]:
    main = _return(node.body)
    if main is None:
        return []
    statements = list(func.body.body)  # type: ignore[attr-defined]
    rest = statements[statements.index(node) + 1 :]
    orelse = node.orelse
    if type(orelse) is cst.Else:
        other = _return(orelse.body)
    elif orelse is None:
        following = [s for s in rest if _exits(s)]
        if not following:
            return [] if _is_none(main.value) else [Mismatch(main, None, "no-return")]
        first = following[0]
        other = _last_small(first) if first is rest[-1] else None
    else:
        return []
    if other is None or type(other) is not cst.Return:
        return []
    kind = _differ(main.value or cst.Name("None"), other.value or cst.Name("None"))
    return [Mismatch(main, None, kind)] if kind else []
