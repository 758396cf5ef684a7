"""Code that runs once although it sits in a loop or a function that runs many times: the
body of a run-once guard.

A guard is an `if` whose test reads a flag (a name or an attribute: `need_compile`,
`not built`, `self._fn is None`) and whose own body rebinds that same flag
(`need_compile = False`, `self._fn = ...`). The body runs the first time and again only
where other code re-arms the flag (google-deepmind/tapnet recompiles its update step only
when a fork changes its static arguments). A memo is the same shape keyed: `if key in
cache: return cache[key]` ahead of code that stores `cache[key]` runs that code once per key
(`runs_once_per_key`). Framework-neutral: nothing here knows jax or TF.
"""

from __future__ import annotations

from collections.abc import Sequence

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


# ---- memos: code that runs once per key of a cache the function fills -----------------------
# `if key in _cache: return _cache[key]` ahead of code that ends in `_cache[key] = value` (or
# `if key not in _cache:` around it): past the first call for a key, the function returns
# early, so that code runs once per key and process whether the caller is eager or traced
# (stylegan2's CUDA plugin loader prints its build steps the first time only).


def runs_once_per_key(path: Sequence[cst.CSTNode]) -> bool:
    """The end of `path` runs the first time only, in any mode: in the body of a run-once
    guard, or of `if key not in cache:` whose body stores `cache[key]`, or after
    `if key in cache: return ...` in a function that stores `cache[key]` (`cache` not a
    local of the function: a module's dict or an attribute). `path` may end at a `def`
    itself (a `tf.function` defined there): the function asked about is the one around it."""
    function = next((n for n in reversed(path[:-1]) if type(n) is cst.FunctionDef), None)
    if function is None:
        return False
    stored = _stored_caches(function)
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        if node is function:
            return False
        if (
            type(node) is cst.If
            and child is node.body  # type: ignore[attr-defined]
            and (
                (is_run_once_guard(node) and _outlives_call(_flag(node.test), function))  # type: ignore[arg-type]
                or _membership(node.test, negated=True) in stored  # type: ignore[arg-type]
            )
        ):
            return True
        if type(node) is cst.IndentedBlock:
            for statement in node.body:
                if statement is child:
                    break
                if type(statement) is cst.If and _returns_when_cached(statement, stored):
                    return True
    return False


def _outlives_call(flag: str | None, function: cst.FunctionDef) -> bool:
    """The flag keeps its value from one call of `function` to the next: an attribute of
    `self`/`cls` or of a module-level object, or a name the function declares `global` or
    `nonlocal` (a parameter or a local, `if n is None: n = 4`, is armed again every call)."""
    if flag is None:
        return False
    root = flag.split(".")[0]
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    if "." in flag:
        return root in ("self", "cls") or (
            root not in names and root not in _rebound(function.body)
        )
    for node in own_scope_nodes(function.body, _FUNCTIONS):
        if type(node) in (cst.Global, cst.Nonlocal) and any(
            item.name.value == root
            for item in node.names  # type: ignore[attr-defined]
        ):
            return True
    return False


def _membership(test: cst.BaseExpression, negated: bool) -> tuple[str, str] | None:
    """(key, cache) of `key in cache` (`not in` when `negated`), both names or attributes."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:  # type: ignore[attr-defined]
        return None
    target = test.comparisons[0]  # type: ignore[attr-defined]
    if type(target.operator) is not (cst.NotIn if negated else cst.In):
        return None
    key, cache = spelled(test.left), spelled(target.comparator)  # type: ignore[attr-defined]
    return None if key is None or cache is None else (key, cache)


def _returns_when_cached(statement: cst.If, stored: set[tuple[str, str]]) -> bool:
    """`if key in cache: ...; return ...` (no `else`), the function storing `cache[key]`."""
    if statement.orelse is not None or _membership(statement.test, negated=False) not in stored:
        return False
    body = statement.body.body
    last = body[-1] if body else None
    return (
        type(last) is cst.SimpleStatementLine
        and bool(last.body)
        and type(last.body[-1]) is cst.Return
    )


def _stored_caches(function: cst.FunctionDef) -> set[tuple[str, str]]:
    """(key, cache) of each `cache[key] = ...` in the function's own scope whose cache is not
    bound in it (a local dict would start empty on every call)."""
    stored: set[tuple[str, str]] = set()
    local = _rebound(function.body)
    for node in own_scope_nodes(function.body, _FUNCTIONS):
        if type(node) is not cst.Assign:
            continue
        for target in node.targets:  # type: ignore[attr-defined]
            subscript = target.target
            if type(subscript) is not cst.Subscript or len(subscript.slice) != 1:
                continue
            index = subscript.slice[0].slice
            key = spelled(index.value) if type(index) is cst.Index else None
            cache = spelled(subscript.value)
            if key is not None and cache is not None and cache.split(".")[0] not in local:
                stored.add((key, cache))
    return stored
