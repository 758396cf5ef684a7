"""Traced calls that cross modules: the project view of the tracing model.

A file's lint records its *outbound* calls: calls from traced code to a name its imports
resolve to a function of another module (`from .m import f; f(x)`, `import pkg.m as m;
m.f(x)`), with the kind (traced, static, unknown) of each argument. The runner resolves the
module among the files of the run (`ProjectFiles`) and lints the callee's file again with
those calls as *inbound* calls: the named top-level `def` is then traced, its parameters'
kinds bound from the call exactly as for a module-local helper (`bind_arguments`).

Records are plain frozen dataclasses of strings, ints and tuples: they cross the `--jobs`
process pool and the JSON result cache, and sort deterministically.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst._nodes.internal import CodegenState

from jitlint.analysis.jax_api import call_kind
from jitlint.analysis.transforms import TRANSFORMS, enclosing_function, materialise, param_names
from jitlint.analysis.values import PYTREE, STATIC, TRACED, UNKNOWN, S, U, Value

if TYPE_CHECKING:
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
        return (*key, self)

    def to_json(self) -> list[Any]:
        return [self.function, self.site, self.caller, self.how, self.level, self.args, self.star]


# ---- the caller's side --------------------------------------------------------------------
def outbound_calls(tracing: Tracing) -> list[CallRecord]:
    """Calls from traced code to functions that the imports place in another module."""
    if not tracing.active:
        return []
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
        if not _may_be_project_function(target):
            continue
        found.append((call, caller, target))
    if not found:
        return []
    lines = _lines(tracing, [call for call, _, _ in found])
    out = []
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
    return sorted(set(out))


def _may_be_project_function(target: str) -> bool:
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


def _lines(tracing: Tracing, calls: list[cst.Call]) -> dict[int, int]:
    if "positions" in tracing.__dict__:  # resolved already for this file's findings
        return {id(call): tracing.line(call) or 1 for call in calls}
    state = _LineCounter(tracing.module, {id(call) for call in calls})
    tracing.module._codegen(state)
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
    if type(default) is cst.Name and default.value in ("True", "False", "None"):
        return Value(STATIC, pytype=f"literal:{default.value}")
    return S


_KIND_VALUES = {STATIC: S, UNKNOWN: U}


def inbound_contribution(func: cst.FunctionDef, call: Inbound) -> dict[str, Value]:
    def wrap(name: str, kind: Value) -> Value:
        if kind.traced:
            return Value(PYTREE if kind.kind == PYTREE else TRACED, ("import", name, func, call))
        return kind

    args = [(keyword, _KIND_VALUES.get(kind) or Value(kind)) for keyword, kind in call.args]
    return bind_arguments(func, args, call.star, wrap)


def top_level_defs(module: cst.Module) -> frozenset[str]:
    """Names of the module's top-level `def`s: the only functions inbound calls may reach.
    A cheap superset for the runner; `Tracing` checks the name is bound once, by the def."""
    return frozenset(s.name.value for s in module.body if type(s) is cst.FunctionDef)


# ---- the runner's side: which file a dotted name is ------------------------------------
@dataclass
class ProjectFiles:
    """The run's files by absolute path, and by the dotted module names they can be
    imported as from the package roots (the parent of the top-most directory with an
    `__init__.py`; a script's own directory; the config root and `root/src`)."""

    paths: dict[str, str]  # absolute path -> display path
    modules: dict[str, str | None] = field(default_factory=dict)  # dotted -> path (None: two)

    @classmethod
    def build(cls, files: Iterable[tuple[str, str]], config_root: str | None) -> ProjectFiles:
        paths = {os.path.abspath(path): display for path, display in files}
        project = cls(paths)
        package_dirs: dict[str, bool] = {}

        def is_package(directory: str) -> bool:
            known = package_dirs.get(directory)
            if known is None:
                known = package_dirs[directory] = os.path.isfile(
                    os.path.join(directory, "__init__.py")
                )
            return known

        roots: set[str] = set()
        if config_root is not None:
            roots |= {os.path.abspath(config_root), os.path.join(config_root, "src")}
        for path in paths:
            directory = os.path.dirname(path)
            while is_package(directory) and os.path.dirname(directory) != directory:
                directory = os.path.dirname(directory)
            roots.add(directory)
        for path in paths:
            for root in roots:
                dotted = _dotted(path, root)
                if dotted is None:
                    continue
                if project.modules.get(dotted, path) != path:
                    project.modules[dotted] = None  # two files claim the name: ambiguous
                else:
                    project.modules[dotted] = path
        return project

    def resolve(self, caller_path: str, target: str) -> tuple[str, str] | None:
        """(callee's absolute path, function name) for a recorded call, or None."""
        dots = len(target) - len(target.lstrip("."))
        parts = target[dots:].split(".")
        module, function = parts[:-1], parts[-1]
        if dots:
            base = os.path.dirname(os.path.abspath(caller_path))
            for _ in range(dots - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *module)
            candidates = [os.path.join(stem, "__init__.py")]
            if module:
                candidates.insert(0, stem + ".py")
            found = next((c for c in candidates if c in self.paths), None)
        else:
            found = self.modules.get(".".join(module)) if module else None
        if found is None or found == os.path.abspath(caller_path):
            return None
        return found, function


def _dotted(path: str, root: str) -> str | None:
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        return None
    parts = relative[: -len(".py")].split(os.sep) if relative.endswith(".py") else None
    if not parts:
        return None
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def inbound_for(
    project: ProjectFiles,
    outbound: dict[str, Sequence[CallRecord]],
    defs: dict[str, frozenset[str]],
) -> dict[str, tuple[Inbound, ...]]:
    """Each callee file's inbound calls, sorted, from every file's outbound records (by
    absolute path); calls to names that are not a top-level def of the callee are dropped."""
    found: dict[str, set[Inbound]] = {}
    for caller_path, records in outbound.items():
        display = project.paths.get(caller_path, caller_path)
        for record in records:
            resolved = project.resolve(caller_path, record.target)
            if resolved is None:
                continue
            callee, function = resolved
            if function not in defs.get(callee, ()):
                continue
            found.setdefault(callee, set()).add(
                Inbound(
                    function, f"{display}:{record.line}", record.caller, record.how,
                    record.level, record.args, record.star,
                )
            )  # fmt: skip
    return {path: tuple(sorted(calls, key=Inbound.rank)) for path, calls in found.items()}
