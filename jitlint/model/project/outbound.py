"""The caller's side of the project pass: the outbound records a file's lint produces.

Calls from traced code to functions of other modules, and transformations applied to such
functions, become `CallRecord`s and `EntryRecord`s (records.py), each with its line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst
from libcst._nodes.internal import CodegenState

from jitlint.model.domain.values import UNKNOWN
from jitlint.model.jax.api import call_kind
from jitlint.model.jax.transforms import (
    PARAM_OPTIONS,
    enclosing_function,
    materialise,
)
from jitlint.model.project.records import (
    SCALAR,
    CallRecord,
    EntryRecord,
    Outbound,
    argument_kind,
    may_be_project_function,
)

if TYPE_CHECKING:
    from jitlint.model.jax.tracing import FunctionTrace, Tracing

_PARTICIPLES = {"compiles": "compiled", "traces": "traced", "differentiates": "differentiated"}


# ---- the caller's side --------------------------------------------------------------------
def outbound_calls(tracing: Tracing, source: str) -> list[Outbound]:
    """Calls from traced code to functions that the imports place in another module, then
    transformations applied to such functions. `source` is the module's text."""
    python = _python_calls(tracing, source)
    if not tracing.active:
        entries = _outbound_entries(tracing, source) if tracing.index.foreign else []
        return [*python, *entries]
    records = {*_syntactic_calls(tracing, source), *_interpreted(tracing, source), *python}
    calls = sorted(r for r in records if isinstance(r, CallRecord))
    entries = sorted(r for r in records if isinstance(r, EntryRecord))
    return [*calls, *entries]


def _interpreted(tracing: Tracing, source: str) -> list[Outbound]:
    """What interpretation found: calls of methods of other modules' classes
    (`net.apply(x)`, `super().__call__(x)` through an imported base) and transformations of
    them (`jax.jit(net.apply)`)."""
    tracing.solve()
    records = tracing.foreign_records
    if not records:
        return []
    lines = _lines(tracing, [(r.call, r.top) for r in records], source)
    out: list[Outbound] = []
    for record in records:
        line = lines[id(record.call)]
        caller = record.context.trace
        if record.options is None:
            out.append(
                CallRecord(
                    record.target, line, f"`{caller.qualname}`", _how(caller), record.level,
                    tuple(record.args), record.star,
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
            EntryRecord(record.target, line, qualname, qualname, record.level, options, 1, ())
        )
    return out


def _python_calls(tracing: Tracing, source: str) -> list[CallRecord]:
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
    lines = _lines(tracing, [(call, _top(path)) for call, path, _, _, _ in found], source)
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


def _syntactic_calls(tracing: Tracing, source: str) -> list[Outbound]:
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
        return _outbound_entries(tracing, source)
    lines = _lines(tracing, [(call, _top(caller.path)) for call, caller, _ in found], source)
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
                target, lines[id(call)], f"`{caller.name}`", _how(caller), caller.level,
                tuple(args), star,
            )
        )  # fmt: skip
    return [*sorted(set(out)), *_outbound_entries(tracing, source)]


def _outbound_entries(tracing: Tracing, source: str) -> list[EntryRecord]:
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
    lines = _lines(tracing, sites, source)
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
                tuple(sorted(application.bound_names)),
            )
        )  # fmt: skip
    return sorted(out)


def _how(caller: FunctionTrace) -> str:
    if caller.entries:
        transform = max(caller.entries, key=lambda e: e.level).transform
        participle = _PARTICIPLES.get(transform.verb, "traced")
        return f"{participle} by `{transform.qualname}`"
    if caller.inbound:
        first = caller.inbound[0]
        return f"called by {first.caller} ({first.site})"
    return "called from traced code"


class _LineCounter(CodegenState):
    """Codegen that only counts lines and notes where the wanted nodes start: the call lines
    cost a codegen pass (~0.2x a parse), not libcst's PositionProvider (~1.4x)."""

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(module.default_indent, module.default_newline)
        self.wanted = wanted
        self.line = 1
        self.starts: dict[int, tuple[int, int]] = {}

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.line += value.count("\n")

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self.starts[id(node)] = (self.line, len(self.tokens))


def _top(path: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    """The module-level statement a path goes through (path[0] is the module)."""
    return path[1] if len(path) > 1 else None


def _unique(source: str, text: str) -> int | None:
    at = source.find(text)
    return at if at >= 0 and source.find(text, at + 1) < 0 else None


def _lines(
    tracing: Tracing, nodes: Sequence[tuple[cst.CSTNode, cst.CSTNode | None]], source: str
) -> dict[int, int]:
    """The line of each node, given with a node around it (its function, or its
    module-level statement).

    libcst reproduces the source exactly, so a text that occurs once in the file, or once in
    the text of the node around it (found once in the file), places the node: searches
    instead of a codegen of the module (~0.2x a parse). Only what repeats even there is
    counted by a codegen, of the node around it when that can be placed."""
    if "positions" in tracing.__dict__:  # resolved already for this file's findings
        return {id(node): tracing.line(node) or 1 for node, _ in nodes}
    code = tracing.module.code_for_node
    lines: dict[int, int] = {}
    around: dict[int, tuple[cst.CSTNode | None, list[cst.CSTNode]]] = {}
    for node, scope in nodes:
        head = _call_head(node, code)
        at = _unique(source, head) if head is not None else None
        if at is not None:
            lines[id(node)] = _line_at(source, at, head)  # type: ignore[arg-type]
            continue
        text = code(node)
        at = _unique(source, text)
        if at is None:
            around.setdefault(id(scope), (scope, []))[1].append(node)
        else:
            lines[id(node)] = _line_at(source, at, text)
    for scope, group in around.values():
        scope_text = code(scope) if scope is not None else ""
        base = _unique(source, scope_text) if scope is not None else None
        if base is None:
            lines.update(_counted_lines(tracing.module, tracing.module, 1, group))
            continue
        rest = []
        for node in group:
            text = code(node)
            at = _unique(scope_text, text)
            if at is None:
                rest.append(node)
            else:
                lines[id(node)] = _line_at(source, base + at, text)
        if rest:
            first = source.count("\n", 0, base) + 1
            lines.update(_counted_lines(tracing.module, scope, first, rest))  # type: ignore[arg-type]
    return lines


def _call_head(node: cst.CSTNode, code: Callable[[cst.CSTNode], str]) -> str | None:
    """`f(` for a call `f(...)` written without parentheses around it: when that text occurs
    once in the file it places the call, without generating the text of its arguments
    (a lambda or a long argument list can be most of a function)."""
    if type(node) is not cst.Call or node.lpar:  # type: ignore[attr-defined]
        return None
    space = node.whitespace_after_func  # type: ignore[attr-defined]
    if type(space) is not cst.SimpleWhitespace or space.value:
        return None
    return code(node.func) + "("  # type: ignore[attr-defined]


def _line_at(source: str, at: int, text: str) -> int:
    # A call's text may begin with its own parentheses and line breaks.
    at += len(text) - len(text.lstrip("( \t\r\n\\"))
    return source.count("\n", 0, at) + 1


def _counted_lines(
    module: cst.Module, root: cst.CSTNode, first_line: int, nodes: list[cst.CSTNode]
) -> dict[int, int]:
    state = _LineCounter(module, {id(node) for node in nodes})
    state.line = first_line  # the line `root` starts on
    root._codegen(state)
    lines = {}
    for key, (line, start) in state.starts.items():
        # A call's text may begin with its own parentheses and line breaks.
        for token in state.tokens[start:]:
            if token.strip() not in ("", "("):
                break
            line += token.count("\n")
        lines[key] = line
    return lines
