"""Traced calls that cross modules: the project view of the tracing model.

A file's lint records its *outbound* calls: calls from traced code to a name its imports
resolve to a function of another module (`from .m import f; f(x)`, `import pkg.m as m;
m.f(x)`), with the kind (traced, static, unknown) of each argument. The runner resolves the
module among the files of the run (`ProjectFiles`) and lints the callee's file again with
those calls as *inbound* calls: the named top-level `def` is then traced, its parameters'
kinds bound from the call exactly as for a module-local helper (`bind_arguments`).

It also records transformations applied to such a name (`jax.jit(model.loss,
static_argnames=...)`) as `EntryRecord`s: the transformation and the text of the options
that decide the parameters. The defining file rebuilds them into an `Entry` with the same
`application_params` as a local application: its signature is known only there.

Records are plain frozen dataclasses of strings, ints and tuples: they cross the `--jobs`
process pool and the JSON result cache, and sort deterministically.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst._nodes.internal import CodegenState

from jitlint.analysis.jax_api import call_kind
from jitlint.analysis.transforms import (
    PARAM_OPTIONS,
    TRANSFORMS,
    Entry,
    application_params,
    enclosing_function,
    materialise,
    param_names,
)
from jitlint.analysis.values import PYTREE, STATIC, TRACED, UNKNOWN, S, U, Value, literal

if TYPE_CHECKING:
    from jitlint.analysis.names import Names
    from jitlint.analysis.tracing import FunctionTrace, Tracing

# (keyword or None, kind) for each argument before the first `*`/`**`.
Arguments = tuple[tuple[str | None, int], ...]

_PARTICIPLES = {"compiles": "compiled", "traces": "traced", "differentiates": "differentiated"}


@dataclass(frozen=True, order=True)
class CallRecord:
    """An outbound call, as the caller's lint sees it (no path: the runner adds it)."""

    target: str  # the callee as the caller's imports spell it: ".util.h", "pkg.util.h"
    line: int  # of the call, in the caller's file
    caller: str  # "`step`"
    how: str  # "compiled by `jax.jit`", for the message
    level: int  # the caller's tracing level (GRAD, ABSTRACT)
    args: Arguments
    star: bool  # a `*`/`**` argument: the parameters it may fill are unknown

    def to_json(self) -> list[Any]:
        return [self.target, self.line, self.caller, self.how, self.level, self.args, self.star]

    @classmethod
    def from_json(cls, data: list[Any]) -> CallRecord:
        target, line, caller, how, level, args, star = data
        bound = tuple((k, int(v)) for k, v in args)
        return cls(str(target), int(line), str(caller), str(how), int(level), bound, bool(star))


@dataclass(frozen=True, order=True)
class Inbound:
    """A call from traced code in another file of the run to the top-level def `function`."""

    function: str
    site: str  # "pkg/train.py:12"
    caller: str  # "`step`"
    how: str
    level: int
    args: Arguments
    star: bool

    @property
    def origin(self) -> str:
        return f"{self.caller} ({self.site}), {self.how}"

    def rank(self) -> tuple[Any, ...]:
        """The order messages prefer: the highest level, a traced argument, then the site
        (file, line as a number), so the first call named is the most direct cause."""
        path, _, line = self.site.rpartition(":")
        traced = any(kind in (TRACED, PYTREE) for _, kind in self.args)
        key = (self.function, -self.level, not traced, path, int(line) if line.isdigit() else 0)
        return (*key, 1, self)

    def to_json(self) -> list[Any]:
        return [self.function, self.site, self.caller, self.how, self.level, self.args, self.star]


@dataclass(frozen=True, order=True)
class EntryRecord:
    """A transformation applied to a function of another module, as the applying file sees
    it (no path: the runner adds it)."""

    target: str  # as for CallRecord
    line: int  # of the application
    transform: str  # the outermost transformation: `jax.jit` in `jax.jit(jax.grad(f))`
    applied: str  # the one whose options decide the parameters: `jax.grad` there
    level: int
    options: tuple[tuple[str, str], ...]  # (keyword, source text) of the options it reads
    bound: int  # positional arguments bound by `partial(f, ...)`
    bound_names: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        # A dict, where a CallRecord is a list: one cached list holds both.
        return {"entry": [self.target, self.line, self.transform, self.applied, self.level,
                          self.options, self.bound, self.bound_names]}  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntryRecord:
        target, line, transform, applied, level, options, bound, names = data["entry"]
        return cls(
            str(target), int(line), str(transform), str(applied), int(level),
            tuple((str(k), str(v)) for k, v in options), int(bound), tuple(map(str, names)),
        )  # fmt: skip


@dataclass(frozen=True, order=True)
class InboundEntry:
    """A transformation applied to the top-level def `function` in another file of the run."""

    function: str
    site: str  # "pkg/train.py:12"
    transform: str
    applied: str
    level: int
    options: tuple[tuple[str, str], ...]
    bound: int
    bound_names: tuple[str, ...]

    def rank(self) -> tuple[Any, ...]:
        """As `Inbound.rank`; an application ranks before a call at the same level."""
        path, _, line = self.site.rpartition(":")
        return (self.function, -self.level, False, path, int(line) if line.isdigit() else 0,
                0, self)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {"entry": [self.function, self.site, self.transform, self.applied, self.level,
                          self.options, self.bound, self.bound_names]}  # fmt: skip


Outbound = CallRecord | EntryRecord
Received = Inbound | InboundEntry


def record_from_json(data: Any) -> Outbound:
    return EntryRecord.from_json(data) if isinstance(data, dict) else CallRecord.from_json(data)


# ---- the caller's side --------------------------------------------------------------------
def outbound_calls(tracing: Tracing, source: str) -> list[Outbound]:
    """Calls from traced code to functions that the imports place in another module, then
    transformations applied to such functions. `source` is the module's text."""
    if not tracing.active:
        return _outbound_entries(tracing, source) if tracing.index.foreign else []
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
    out: list[CallRecord] = []
    for call, caller, target in found:
        values = caller.analyzer.values
        args: list[tuple[str | None, int]] = []
        star = False
        for arg in call.args:
            if arg.star:
                star = True  # as for local helpers: what it fills, and all after it, is unknown
                break
            kind = values.get(id(arg.value), U).kind
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


def may_be_project_function(target: str) -> bool:
    if not target or target in TRANSFORMS or call_kind(target) != "unknown":
        return False  # jax, numpy, builtins...: modelled already, never project code
    # `import util; util(x)` calls a module; a relative `.f` is a function of the package.
    return target.startswith(".") or "." in target


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


# ---- the callee's side --------------------------------------------------------------------
def bind_arguments(
    func: cst.FunctionDef,
    args: Sequence[tuple[str | None, Value]],
    star: bool,
    wrap: Callable[[str, Value], Value],
) -> dict[str, Value]:
    """Each parameter's value for one call: the argument it receives (through `wrap`), a
    Python value if left at its default, unknown if a `*`/`**` argument may fill it."""
    p = func.params
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    keyword = set(positional[len(p.posonly_params) :]) | {x.name.value for x in p.kwonly_params}
    defaults = {
        x.name.value: x.default
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.default is not None
    }
    params: dict[str, Value] = {}
    index = 0
    for name, given in args:
        if name is not None:
            if name not in keyword:
                continue
        else:
            if index >= len(positional):
                index += 1
                continue
            name = positional[index]
            index += 1
        params[name] = wrap(name, given)
    for name in param_names(func):
        if name not in params:
            params[name] = default_value(defaults[name]) if name in defaults and not star else U
    return params


def default_value(default: cst.BaseExpression) -> Value:
    """A parameter left at its default: a Python value, and for `True`/`False`/`None` a known
    one, so `if not apply_softmax:` is not analysed for a call that leaves it at True."""
    known = literal(default.value) if type(default) is cst.Name else None
    return known or S


_KIND_VALUES = {STATIC: S, UNKNOWN: U}


def inbound_contribution(func: cst.FunctionDef, call: Inbound) -> dict[str, Value]:
    def wrap(name: str, kind: Value) -> Value:
        if kind.traced:
            return Value(PYTREE if kind.kind == PYTREE else TRACED, ("import", name, func, call))
        return kind

    args = [(keyword, _KIND_VALUES.get(kind) or Value(kind)) for keyword, kind in call.args]
    return bind_arguments(func, args, call.star, wrap)


def inbound_entry(func: cst.FunctionDef, record: InboundEntry) -> Entry | None:
    """The `Entry` an application in another file makes of `func`: its parameters as
    `application_params` computes them for a local one, from the options' text."""
    transform, applied = TRANSFORMS.get(record.transform), TRANSFORMS.get(record.applied)
    if transform is None or applied is None:
        return None
    options = []
    for keyword, text in record.options:
        try:
            value = cst.parse_expression(text)
        except (cst.ParserSyntaxError, ValueError, RecursionError):
            return None
        options.append(cst.Arg(value, keyword=cst.Name(keyword)))
    params = application_params(
        applied, options, func, False, record.bound, set(record.bound_names)
    )
    return Entry(transform, func, func, params, None, record.level, origin=record.site)


def reexports(names: Names) -> dict[str, str]:
    """Names the module binds once, and only by an import, to a name that may be a project
    function (`from .model import loss`: "loss" -> ".model.loss"). A module with a star
    import has none: what it binds is not known."""
    if names.has_star_import():
        return {}
    out = {}
    for name, bindings in names.scope(names.module).bindings.items():
        if len(bindings) == 1 and bindings[0].kind == "import":
            qualname = bindings[0].qualname
            if qualname and qualname != name and may_be_project_function(qualname):
                out[name] = qualname
    return out


def top_level_defs(module: cst.Module) -> frozenset[str]:
    """Names of the module's top-level `def`s: the only functions inbound calls may reach.
    A cheap superset for the runner; `Tracing` checks the name is bound once, by the def."""
    return frozenset(s.name.value for s in module.body if type(s) is cst.FunctionDef)
