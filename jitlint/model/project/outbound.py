"""The caller's side of the project pass: the outbound records a file's lint produces.

Calls from traced code to functions of other modules, and transformations applied to such
functions, become `CallRecord`s and `EntryRecord`s (model/jax/crossfile/records.py), each
with its line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model.domain.values import UNKNOWN
from jitlint.model.jax.api import call_kind
from jitlint.model.jax.crossfile import returned
from jitlint.model.jax.crossfile.records import (
    RETURNED,
    SCALAR,
    CallRecord,
    EntryRecord,
    Inbound,
    Outbound,
    argument_kind,
    may_be_project_function,
)
from jitlint.model.jax.tracing import how_traced
from jitlint.model.jax.transforms import (
    PARAM_OPTIONS,
    enclosing_function,
    materialise,
)
from jitlint.model.project.lines import CallLines, place

if TYPE_CHECKING:
    from jitlint.model.jax.tracing import FunctionTrace, Tracing


# ---- the caller's side --------------------------------------------------------------------
def outbound_calls(tracing: Tracing, source: str, calls: CallLines | None = None) -> list[Outbound]:
    """Calls from traced code to functions that the imports place in another module, then
    transformations applied to such functions. `source` is the module's text; `calls`
    places calls on their lines where it can."""
    python = [*_python_calls(tracing, source, calls), *_pairs_taken(tracing, source, calls)]
    if not tracing.active:
        entries = _outbound_entries(tracing, source, calls) if tracing.index.foreign else []
        return [*python, *entries]
    records = {
        *_syntactic_calls(tracing, source, calls),
        *_interpreted(tracing, source, calls),
        *python,
    }
    calls = sorted((r for r in records if isinstance(r, CallRecord)), key=CallRecord.order)
    entries = sorted(r for r in records if isinstance(r, EntryRecord))
    return [*calls, *entries]


def _interpreted(tracing: Tracing, source: str, calls: CallLines | None) -> list[Outbound]:
    """What interpretation found: calls of methods of other modules' classes
    (`net.apply(x)`, `super().__call__(x)` through an imported base) and transformations of
    them (`jax.jit(net.apply)`)."""
    tracing.solve()
    records = tracing.foreign_records
    if not records:
        return []
    lines = _lines(tracing, [(r.call, r.top) for r in records], source, calls)
    out: list[Outbound] = []
    for record in records:
        line = lines[id(record.call)]
        caller = record.context.trace
        if record.options is None:
            out.append(
                CallRecord(
                    record.target, line, f"`{caller.qualname}`",
                    how_traced(caller) if record.level else "called from Python", record.level,
                    tuple(record.args), record.star, staged=record.context.staged,
                    values=record.values,
                )
            )  # fmt: skip
            continue
        options = tuple(
            (arg.keyword.value, tracing.module.code_for_node(arg.value))
            for arg in record.options
            if arg.keyword is not None and arg.keyword.value in PARAM_OPTIONS
        )
        transform = record.call.func  # type: ignore[attr-defined]
        qualnames = tracing.names.qualified_names(transform, caller.path)
        if len(qualnames) != 1:
            continue
        (qualname,) = qualnames
        out.append(
            EntryRecord(
                record.target, line, qualname, qualname, record.level, options, *record.bound
            )
        )
    return out


def _python_calls(tracing: Tracing, source: str, calls: CallLines | None) -> list[CallRecord]:
    """Calls made in Python (module code, or functions nothing traces) that pass a number or
    bool literal, or an array a `jnp`/`jax.random` call makes, to a function of another
    module, or to a method of an instance of another module's class (`model = Net(...)`
    then `model.step(x, t=jnp.float32(0.5))`): if that function is jitted there, the value
    becomes a traced array (`train_step(state, batch, True)` in a training loop)."""
    found: list[tuple[cst.Call, list[cst.CSTNode], str, str, bool]] = []
    candidates = [(c, link, False) for c, link in tracing.index.imported_calls]
    candidates += [(c, link, True) for c, link in tracing.index.instance_calls]
    for call, link, method in candidates:
        if not any(_given(tracing, arg.value, None) for arg in call.args if not arg.star):
            continue  # cheap pre-test: most calls pass nothing of the kind
        path = [*materialise(link), call]
        if not any(_given(tracing, arg.value, path) for arg in call.args if not arg.star):
            continue
        caller_func = enclosing_function(path)
        if caller_func is not None:
            caller = tracing.trace(caller_func)
            if caller is not None and caller.level > 0:
                continue  # traced code: the other passes record it
        target = _instance_method(tracing, call, path) if method else _target(tracing, call, path)
        if target is None:
            continue
        name = "module code"
        if type(caller_func) is cst.FunctionDef:
            name = f"`{caller_func.name.value}`"
        found.append((call, path, target, name, method))
    if not found:
        return []
    lines = _lines(tracing, [(call, _top(path)) for call, path, _, _, _ in found], source, calls)
    out = set()
    for call, path, target, name, method in found:
        # A method's receiver is its first argument, as in the records of traced calls.
        args: list[tuple[str | None, int]] = [(None, UNKNOWN)] if method else []
        star = False
        for arg in call.args:
            if arg.star:
                star = True
                break
            kind = SCALAR if _given(tracing, arg.value, path) else UNKNOWN
            args.append((arg.keyword.value if arg.keyword is not None else None, kind))
        line = lines[id(call)]
        out.add(CallRecord(target, line, name, "called from Python", 0, tuple(args), star))
    return sorted(out)


def _pairs_taken(tracing: Tracing, source: str, calls: CallLines | None) -> list[CallRecord]:
    """Calls of a function of another module whose return fact names a pair of functions
    (`hk.transform(f)`, crossfile/returned.py), wherever they are made: the callee learns
    that the run shows where its pair goes (records.RETURNED), whatever the call's
    arguments (unknown: `star`). A name a function imports in its own body gets no return
    fact (files.py reads module-level imports): its calls say so whatever they return."""
    if not tracing.index.imported_calls:
        return []
    facts = bool(tracing.inbound)
    found: list[tuple[cst.Call, list[cst.CSTNode], str]] = []
    for call, link in tracing.index.imported_calls:
        path = [*materialise(link), call]
        target = _target(tracing, call, path)
        if target is None:
            continue
        records = tracing.inbound.get(target, ()) if facts else ()
        if any(returned.names_a_pair(getattr(r, "status", "")) for r in records) or (
            _imported_locally(tracing, call, path)
        ):
            found.append((call, path, target))
    if not found:
        return []
    lines = _lines(tracing, [(call, _top(path)) for call, path, _ in found], source, calls)
    out = set()
    for call, path, target in found:
        caller = enclosing_function(path)
        name = f"`{caller.name.value}`" if type(caller) is cst.FunctionDef else "module code"
        line = lines[id(call)]
        taken = ((RETURNED, ""),)
        out.add(CallRecord(target, line, name, "called from Python", 0, (), True, values=taken))
    return sorted(out, key=CallRecord.order)


def _imported_locally(tracing: Tracing, call: cst.Call, path: list[cst.CSTNode]) -> bool:
    """Whether the call's name is bound only by imports in a function's body."""
    head: cst.BaseExpression = call.func
    while type(head) is cst.Attribute:
        head = head.value  # type: ignore[attr-defined]
    if type(head) is not cst.Name:
        return False
    found = tracing.names.lookup_with_path(head.value, path)  # type: ignore[attr-defined]
    if not found or not found[0] or len(found[1]) < 2:
        return False
    return all(binding.kind == "import" for binding in found[0])


def _target(tracing: Tracing, call: cst.Call, path: list[cst.CSTNode]) -> str | None:
    qualnames = tracing.names.qualified_names(call.func, path)
    if len(qualnames) != 1:
        return None
    (target,) = qualnames
    return target if may_be_project_function(target) else None


def _instance_method(tracing: Tracing, call: cst.Call, path: list[cst.CSTNode]) -> str | None:
    """`pkg.model.Net.step` for `model.step(...)` where `model` is bound once, in the
    scope the call reads it from, to `Net(...)` of another module."""
    func = call.func
    receiver = func.value.value  # type: ignore[attr-defined]
    bindings = tracing.names.lookup(receiver, path)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    made = bindings[0].node
    if type(made) is not cst.Call:
        return None
    cls = _target(tracing, made, path)  # type: ignore[arg-type]
    return f"{cls}.{func.attr.value}" if cls is not None else None  # type: ignore[attr-defined]


_ARRAY_MAKERS = ("jax.numpy.", "jax.random.")


def _given(tracing: Tracing, expr: cst.BaseExpression, path: list[cst.CSTNode] | None) -> bool:
    """A number or bool literal, or (with `path`) a call of a `jnp`/`jax.random` function
    that returns an array: what `jax.jit` makes one traced array. Without `path`, a cheap
    test that the expression may be one."""
    if _scalar_literal(expr):
        return True
    if type(expr) is not cst.Call or type(expr.func) is not cst.Attribute:  # type: ignore[attr-defined]
        return False
    if path is None:
        return True
    qualnames = tracing.names.qualified_names(expr.func, path)  # type: ignore[attr-defined]
    return bool(qualnames) and all(
        q.startswith(_ARRAY_MAKERS) and call_kind(q) == "jax" for q in qualnames
    )


def _scalar_literal(expr: cst.BaseExpression) -> bool:
    kind = type(expr)
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        return _scalar_literal(expr.expression)  # type: ignore[attr-defined]
    if kind is cst.Name:
        return expr.value in ("True", "False")  # type: ignore[attr-defined]
    return kind is cst.Integer or kind is cst.Float


def _syntactic_calls(tracing: Tracing, source: str, calls: CallLines | None) -> list[Outbound]:
    names = tracing.names
    found: list[tuple[cst.Call, FunctionTrace, str]] = []
    for call, link in tracing.index.imported_calls:
        path = [*materialise(link), call]
        caller_func = enclosing_function(path)
        if caller_func is None:
            continue  # module level: runs in Python
        caller = tracing.trace(caller_func)
        if caller is None or caller.level == 0:
            continue
        qualnames = names.qualified_names(call.func, path)
        if len(qualnames) != 1:
            continue  # rebound somewhere, or several meanings: ambiguous
        (target,) = qualnames
        if not may_be_project_function(target):
            continue
        found.append((call, caller, target))
    if not found:
        return _outbound_entries(tracing, source, calls)
    lines = _lines(tracing, [(call, _top(caller.path)) for call, caller, _ in found], source, calls)
    tracing.solve()
    out: list[CallRecord] = []
    for call, caller, target in found:
        args: list[tuple[str | None, int]] = []
        star = False
        for arg in call.args:
            if arg.star:
                star = True  # as for local helpers: what it fills, and all after it, is unknown
                break
            kind = argument_kind(caller.value(arg.value))
            args.append((arg.keyword.value if arg.keyword is not None else None, kind))
        out.append(
            CallRecord(
                target, lines[id(call)], f"`{caller.name}`", how_traced(caller), caller.level,
                tuple(args), star, staged=any(c.staged for c in caller.contexts if c.level > 0),
            )
        )  # fmt: skip
    return [*sorted(set(out), key=CallRecord.order), *_outbound_entries(tracing, source, calls)]


def _outbound_entries(tracing: Tracing, source: str, calls: CallLines | None) -> list[EntryRecord]:
    found = []
    for application in tracing.index.foreign:
        qualnames = tracing.names.qualified_names(application.target, application.path)
        if len(qualnames) != 1:
            continue
        (target,) = qualnames
        if not may_be_project_function(target):
            continue
        level = application.level
        if application.enclosing is not None:  # applied inside traced code: as in _build
            outer = tracing.trace(application.enclosing)
            if outer is not None:
                level = max(level, outer.level)
        found.append((application, target, level))
    if not found:
        return []
    sites = [(application.site, _top(application.path)) for application, _, _ in found]
    lines = _lines(tracing, sites, source, calls)
    out = set()
    for application, target, level in found:
        options = tuple(
            (arg.keyword.value, tracing.module.code_for_node(arg.value))
            for arg in application.options
            if arg.keyword is not None and arg.keyword.value in PARAM_OPTIONS
        )
        out.add(
            EntryRecord(
                target, lines[id(application.site)], application.transform.qualname,
                application.applied.qualname, level, options, application.bound_positional,
                tuple(sorted(application.bound_names)), calls=application.calls,
            )
        )  # fmt: skip
    return sorted(out)


def _top(path: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    """The module-level statement a path goes through (path[0] is the module)."""
    return path[1] if len(path) > 1 else None


def _lines(
    tracing: Tracing,
    nodes: Sequence[tuple[cst.CSTNode, cst.CSTNode | None]],
    source: str,
    calls: CallLines | None = None,
) -> dict[int, int]:
    """The line of each node, given with its module-level statement (lines.py)."""
    if "positions" in tracing.__dict__:  # resolved already for this file's findings
        return {id(node): tracing.line(node) or 1 for node, _ in nodes}
    return place(tracing.module, nodes, source, calls)


def self_call_inbound(
    tracing: Tracing, display: str, source: str, calls: CallLines | None = None
) -> dict[str, list[Inbound]]:
    """The calls on `self` that traced methods of top-level classes make, by "Cls.method",
    as the inbound calls a subclass's override in another file receives."""
    tracing.solve()
    records = tracing.self_calls
    if not records:
        return {}
    lines = _lines(tracing, [(r.call, r.top) for r in records], source, calls)
    out: dict[str, list[Inbound]] = {}
    for record in records:
        caller = record.context.trace
        call = Inbound(
            record.target, f"{display}:{lines[id(record.call)]}", f"`{caller.qualname}`",
            how_traced(caller), record.level, tuple(record.args), record.star,
            record.context.staged,
        )  # fmt: skip
        if call not in out.setdefault(record.target, []):
            out[record.target].append(call)
    return out
