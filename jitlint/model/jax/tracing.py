"""The JAX tracing model every JIT1xx rule queries: which code is traced, and which values
inside it are tracers.

A function is traced when a transformation is applied to it (see `transforms.py`), or when a
traced function calls it by a name that resolves to a module-local `def` (a helper); a
helper's parameters are traced when some traced call site passes a traced value. The runner
may also hand over *inbound* calls from traced code in other files of the run (see
`model/project/records.py`): they count as call sites of the named top-level `def`. Everything
is computed on demand and cached: finding the applications costs one pass over the module;
a function's values are computed only when a rule asks about code inside it.

Levels: ABSTRACT (jit, vmap, pmap, lax bodies, ...) where Python bool conversion of a tracer
fails; GRAD (grad family alone) where values stay concrete and it works; 0 for code no
transformation reaches (analysed only for JIT106, which needs "is this a JAX array?").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.model.domain.names import UNKNOWN as UNKNOWN_NAME
from jitlint.model.domain.names import Names
from jitlint.model.domain.values import (
    ITEMS,
    PYTREE,
    STATIC,
    TRACED,
    UNKNOWN,
    S,
    U,
    Value,
    combine,
    container,
    first_traced,
    literal_truth,
    traced,
)
from jitlint.model.jax.analyzer import Analyzer
from jitlint.model.jax.api import (
    ARRAY_METHODS,
    COLLECTIVES,
    CONCRETIZING_METHODS,
    JAX_BOOLEAN,
    JAX_SEQUENCE_RESULTS,
    MAPPING_METHODS,
    SHAPE_ATTRIBUTES,
    call_kind,
)
from jitlint.model.jax.narrowing import Guards
from jitlint.model.jax.pytree_fields import (
    ARRAY_FIELD,
    STATIC_FIELD,
    Instance,
    PytreeClasses,
    attach_instances,
    field_kind,
)
from jitlint.model.jax.transforms import (
    ABSTRACT,
    GRAD,
    TRANSFORMS,
    Discovery,
    Entry,
    FuncNode,
    Index,
    enclosing_function,
    param_names,
    static_truth,
)
from jitlint.model.project.records import (
    Inbound,
    Received,
    bind_arguments,
    inbound_contribution,
    inbound_entry,
)

__all__ = ["ABSTRACT", "GRAD", "FunctionTrace", "Tracing", "Value"]


class FunctionTrace:
    """What the model knows about one function body (or lambda, or the module)."""

    def __init__(
        self,
        tracing: Tracing,
        func: FuncNode | cst.Module,
        level: int,
        params: dict[str, Value],
        entries: list[Entry],
        path: list[cst.CSTNode],
    ) -> None:
        self.tracing = tracing
        self.func = func
        self.level = level
        self.params = params
        self.entries = entries
        self.path = path  # from the module to the function's body
        self.inbound: list[Inbound] = []  # calls from traced code in other files
        self._analyzer: Analyzer | None = None
        self.analysing = False

    @property
    def name(self) -> str:
        if type(self.func) is cst.FunctionDef:
            return self.func.name.value  # type: ignore[union-attr]
        return "<lambda>" if type(self.func) is cst.Lambda else "<module>"

    @property
    def abstract(self) -> bool:
        """True where Python bool conversion of a tracer fails (jit, vmap, lax bodies...)."""
        return self.level >= ABSTRACT

    @property
    def analyzer(self) -> Analyzer:
        if self._analyzer is None:
            self.analysing = True
            try:
                self._analyzer = self.tracing._analyse(self)
            finally:
                self.analysing = False
        return self._analyzer

    def value(self, expr: cst.CSTNode) -> Value:
        return self.analyzer.values.get(id(expr), U)


class Tracing:
    def __init__(
        self, names: Names, inbound: Mapping[str, Sequence[Received]] | None = None
    ) -> None:
        self.names = names
        self.module = names.module
        # top-level function name -> calls from, and applications in, other files
        self.inbound = inbound or {}
        self._traces: dict[int, FunctionTrace | None] = {}
        self._in_progress: set[int] = set()
        self._qualnames: dict[int, frozenset[str]] = {}

    @cached_property
    def index(self) -> Index:
        return Discovery(self.names).run()

    @cached_property
    def pytree_classes(self) -> PytreeClasses:
        return PytreeClasses(self.names)

    @cached_property
    def active(self) -> bool:
        """Whether anything in the module is traced at all (a cheap early exit for rules)."""
        return bool(self.index.entries) or bool(self.inbound)

    @cached_property
    def positions(self) -> Any:
        return MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)

    def line(self, node: cst.CSTNode) -> int | None:
        where = self.positions.get(node)
        return where.start.line if where is not None else None

    # ---- queries ----------------------------------------------------------------------
    def function_at(self, path: Sequence[cst.CSTNode]) -> FunctionTrace | None:
        """The traced function whose body holds the end of `path`, or None."""
        if not self.active:
            return None
        func = enclosing_function(path)
        if func is None:
            return None
        return self.trace(func)

    def any_function_at(self, path: Sequence[cst.CSTNode]) -> FunctionTrace | None:
        """Like `function_at`, but untraced code (level 0, the module too) also answers."""
        func = enclosing_function(path)
        if func is None:
            if any(type(node) is cst.ClassDef for node in path[:-1]):
                return None
            return self._untraced(self.module)
        found = self.trace(func) if self.active else None
        return found if found is not None else self._untraced(func)

    def value(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Value | None:
        """The value of `expr` (which ends `path`) if it is inside a traced function."""
        found = self.function_at(path)
        return found.value(expr) if found is not None else None

    # ---- building traces --------------------------------------------------------------
    def trace(self, func: FuncNode) -> FunctionTrace | None:
        key = id(func)
        if key in self._traces:
            return self._traces[key]
        if key in self._in_progress:
            return None  # recursion: a cycle of helpers adds nothing new
        self._in_progress.add(key)
        try:
            result = self._build(func)
        finally:
            self._in_progress.discard(key)
        self._traces[key] = result
        return result

    def _build(self, func: FuncNode) -> FunctionTrace | None:
        contributions: list[tuple[int, dict[str, Value]]] = []
        entries = self.index.entries.get(id(func), [])
        inbound: list[Inbound] = []
        if type(func) is cst.FunctionDef:
            for received in self._inbound_calls(func):  # type: ignore[arg-type]
                if isinstance(received, Inbound):
                    inbound.append(received)
                else:
                    entry = inbound_entry(func, received)  # type: ignore[arg-type]
                    if entry is not None:
                        entries = [*entries, entry]
        for entry in entries:
            level = entry.level
            if entry.enclosing is not None:
                outer = self.trace(entry.enclosing)
                if outer is not None:
                    level = max(level, outer.level)
            scalars = _scalar_params(entry.func)
            params = {
                # A parameter annotated `bool`/`int`/`float` is one array, not a container.
                name: Value(TRACED if name in scalars else PYTREE, ("param", name, entry))
                if kind == PYTREE
                else _KINDS[kind]
                for name, kind in entry.params.items()
            }
            attach_instances(self.pytree_classes, entry, self._path_to(entry.func), params)
            contributions.append((level, params))
        if type(func) is cst.FunctionDef:
            contributions.extend(self._helper_sites(func))  # type: ignore[arg-type]
            contributions.extend((c.level, inbound_contribution(func, c)) for c in inbound)  # type: ignore[arg-type]
        if not contributions:
            return None
        level = max(c[0] for c in contributions)
        names = param_names(func)
        params: dict[str, Value] = {}
        for name in names:
            values = [c[1].get(name, U) for c in contributions if c[0] == level]
            hit = first_traced(values)
            if hit is not None:
                params[name] = hit
            elif all(v.kind == STATIC for v in values):
                # The same literal default at every call site keeps its value (see
                # project.default_value); anything else is just a Python value.
                first = values[0]
                known = literal_truth(first) is not None
                same = known and all(v.pytype == first.pytype for v in values)
                params[name] = first if same else S
            elif len(values) == 1 and values[0].pytype is not None:
                params[name] = values[0]  # under filter_jit, a pytree class instance
            else:
                params[name] = U
        path = [*(self.index.path(func) or [self.module]), func, func.body]
        trace = FunctionTrace(self, func, level, params, entries, path)
        trace.inbound = inbound
        return trace

    def _inbound_calls(self, func: cst.FunctionDef) -> list[Received]:
        """The inbound calls and applications that reach `func`: it must be the module-level
        `def` its name is bound to, once (as the runner checked with the same rule)."""
        calls = self.inbound.get(func.name.value)
        if not calls or self.index.path(func) != [self.module]:
            return []
        bindings = self.names.scope(self.module).bindings.get(func.name.value)
        if not bindings or len(bindings) != 1 or bindings[0].node is not func:
            return []
        return list(calls)

    def _helper_sites(self, func: cst.FunctionDef) -> list[tuple[int, dict[str, Value]]]:
        """Contributions from traced functions calling `func` by name."""
        out: list[tuple[int, dict[str, Value]]] = []
        if _is_method(func, self.index.path(func) or []):
            return out
        for call, call_path in self.index.calls.get(func.name.value, []):
            bindings = self.names.lookup(func.name.value, call_path)
            if not bindings or len(bindings) != 1 or bindings[0].node is not func:
                continue
            caller_func = enclosing_function(call_path)
            if caller_func is None or caller_func is func:
                continue
            caller = self.trace(caller_func)
            if caller is None or caller.level == 0 or caller.analysing:
                continue
            values = caller.analyzer.values
            args: list[tuple[str | None, Value]] = []
            star = False
            for arg in call.args:
                if arg.star:
                    star = True
                    break
                keyword = arg.keyword.value if arg.keyword is not None else None
                args.append((keyword, values.get(id(arg.value), U)))

            def wrap(
                name: str, given: Value, caller: FunctionTrace = caller, call: cst.Call = call
            ) -> Value:
                if given.traced:
                    return Value(
                        PYTREE if given.kind == PYTREE else TRACED,
                        ("arg", name, caller, call, given.why),
                        given.boolean,
                    )
                return given

            out.append((caller.level, bind_arguments(func, args, star, wrap)))
        return out

    def _untraced(self, func: FuncNode | cst.Module) -> FunctionTrace:
        key = -id(func) - 1
        found = self._traces.get(key)
        if found is None:
            if type(func) is cst.Module:
                path: list[cst.CSTNode] = [func]
                params: dict[str, Value] = {}
            else:
                path = [*self._path_to(func), func, func.body]  # type: ignore[union-attr]
                params = {name: U for name in param_names(func)}  # type: ignore[arg-type]
            found = FunctionTrace(self, func, 0, params, [], path)
            self._traces[key] = found
        return found

    def _path_to(self, func: FuncNode) -> list[cst.CSTNode]:
        known = self.index.path(func)
        return known if known is not None else [self.module]

    # ---- analysis ---------------------------------------------------------------------
    def _analyse(self, trace: FunctionTrace) -> Analyzer:
        func = trace.func
        if type(func) is cst.Module:
            local = set(self.names.scope(func).bindings)  # type: ignore[arg-type]
        else:
            local = set(self.names.scope(func).bindings)  # type: ignore[arg-type]
        analyzer = Analyzer(
            trace.params,
            local,
            lambda name: self._free_value(trace, name),
            lambda an, call: self._call_value(trace, an, call),
            lambda an, node, base: self._attribute_value(node, base),
        )
        analyzer.truth = lambda test: static_truth(self.names, test, analyzer.env.get)
        analyzer.guards = Guards(lambda expr: self.qualified(trace, expr)).facts
        analyzer.run_function(func)  # type: ignore[arg-type]
        return analyzer

    def _free_value(self, trace: FunctionTrace, name: str) -> Value:
        """A name the body reads but does not bind: a closure, a global or a builtin."""
        if type(trace.func) is cst.Module:
            return U
        found = self.names.lookup_with_path(name, trace.path)
        if found is None:
            return S  # a builtin
        bindings, scope_path = found
        if all(b.kind in ("import", "def", "class") for b in bindings):
            return S
        owner = scope_path[-2] if len(scope_path) >= 2 else scope_path[-1]
        if type(owner) in (cst.FunctionDef, cst.Lambda):
            outer = self.trace(owner)  # type: ignore[arg-type]
            if outer is not None and outer.level > 0 and not outer.analysing:
                return outer.analyzer.summary.get(name, U)
        # Closed over from code that runs in Python (a module, a class, an untraced
        # function): a Python value fixed when the function is traced.
        if len(bindings) == 1 and bindings[0].kind == "assign":
            pytype = _DISPLAYS.get(type(bindings[0].node))
            if pytype is not None:
                return Value(STATIC, pytype=pytype)
        return S

    def qualified(self, trace: FunctionTrace, expr: cst.CSTNode) -> frozenset[str]:
        key = id(expr)
        found = self._qualnames.get(key)
        if found is None:
            found = self._qualnames[key] = self.names.qualified_names(expr, trace.path)
        return found

    def _call_value(self, trace: FunctionTrace, analyzer: Analyzer, call: cst.Call) -> Value:
        values = analyzer.values
        args = [values.get(id(a.value), U) for a in call.args]
        func = call.func
        if type(func) is cst.Attribute:
            receiver = values.get(id(func.value), U)
            if receiver.traced:
                method = func.attr.value
                if method in CONCRETIZING_METHODS:
                    return U
                if receiver.kind == TRACED or method in ARRAY_METHODS:
                    return traced(receiver.why)
                if method == "keys":
                    return S  # the keys of a pytree are its static structure
                if method == "items":
                    return Value(PYTREE, receiver.why, pytype=ITEMS)
                if method in MAPPING_METHODS:
                    return Value(PYTREE, receiver.why)
                return U
        callee = values.get(id(func))
        if callee is not None and callee.pytype == TRANSFORMED:
            # Calling jax.jit(f)/grad(f)/vmap(f)...: arrays in traced code, pytrees of them.
            return Value(PYTREE, ("call", callee.why[1], trace)) if callee.why else U
        if type(func) is not cst.Name and type(func) is not cst.Attribute:
            return U
        qualnames = self.qualified(trace, func)
        if not qualnames or UNKNOWN_NAME in qualnames:
            return U
        if qualnames <= TRANSFORMS.keys():
            return Value(STATIC, ("transform", next(iter(qualnames))), pytype=TRANSFORMED)
        kinds = {call_kind(q) for q in qualnames}
        if len(kinds) != 1:
            return U
        kind = kinds.pop()
        if kind == "jax":
            if analyzer.compile_time_eval:
                return combine(args)
            qualname = next(iter(qualnames))
            if qualname in COLLECTIVES:
                return _collective(args[0] if call.args and not call.args[0].star else U)
            if qualname in JAX_SEQUENCE_RESULTS:  # a list, tuple or pytree of arrays
                return Value(PYTREE, ("op", qualname, trace))
            return traced(("op", qualname, trace), boolean=qualname in JAX_BOOLEAN)
        if kind == "static":
            return S
        if kind == "same":
            return combine(args)
        if kind == "container":
            return container(args)
        if kind == "dispatch":
            hit = first_traced(args)
            if hit is not None:
                return traced(hit.why)
        if kind != "unknown" and all(v.kind == STATIC for v in args):
            return S
        return U

    def _attribute_value(self, node: cst.Attribute, base: Value) -> Value:
        attr = node.attr.value
        if type(base.pytype) is Instance:  # `self.n` of an equinox Module, a flax struct
            kind = field_kind(base.pytype, attr)
            if kind == STATIC_FIELD:
                return S
            if kind == ARRAY_FIELD:
                return traced(("field", attr, base.pytype, base.why))
        if attr in SHAPE_ATTRIBUTES:
            return S
        if base.kind == TRACED:
            return traced(base.why)
        if base.kind == PYTREE:
            return traced(base.why) if attr in ("T", "mT", "real", "imag", "at") else U
        return S if base.kind == STATIC else U

    # ---- explanations -----------------------------------------------------------------
    def describe(self, trace: FunctionTrace) -> str:
        """ "`f`, which `jax.jit` compiles at line 12" for the first application."""
        name = f"`{trace.name}`" if trace.name != "<lambda>" else "this lambda"
        if trace.entries:
            entry = max(trace.entries, key=lambda e: e.level)
            return (
                f"{name}, which `{entry.transform.qualname}` {entry.transform.verb} "
                f"{self.where(entry)}"
            )
        if trace.inbound:
            first = trace.inbound[0]
            return f"{name}, which {first.caller} ({first.site}) calls from traced code"
        return f"{name}, which traced code calls"

    def where(self, entry: Entry) -> str:
        """ "at line 12", or "at pkg/train.py:12" for an application in another file."""
        if entry.origin is not None:
            return f"at {entry.origin}"
        return f"at line {self.line(entry.site)}"

    def explain(self, value: Value, depth: int = 0) -> str:
        """Why `value` is traced, in words."""
        why = value.why
        if not why:
            return "it is computed from traced values"
        if why[0] == "param":
            _, name, entry = why
            func_name = (
                f"`{entry.func.name.value}`" if type(entry.func) is cst.FunctionDef else "a lambda"
            )
            transform = entry.transform
            article = "a non-static" if transform.style in ("jit", "pmap", "ckpt") else "an"
            return (
                f"`{name}` is traced because it is {article} argument of {func_name}, which "
                f"`{transform.qualname}` {transform.verb} {self.where(entry)}"
            )
        if why[0] == "arg":
            _, name, caller, call, inner = why
            text = (
                f"`{name}` is traced because `{caller.name}` passes it a traced value at line "
                f"{self.line(call)}"
            )
            if depth < 2 and inner:
                text += f" ({self.explain(Value(TRACED, inner), depth + 1)})"
            return text
        if why[0] == "field":
            _, attr, instance, owner = why
            text = f"`{attr}` is a non-static field of `{instance.cls.name}`"
            if not owner or owner[0] != "param":
                return text
            _, name, entry = owner
            leaves = "every leaf" if instance.style == "jit" else "the array leaves"
            return (
                f"{text}, and `{entry.transform.qualname}` traces {leaves} of `{name}` "
                f"{self.where(entry)}"
            )
        if why[0] == "import":
            _, name, func, call = why
            return (
                f"`{name}` is traced because {call.origin}, passes a traced value to "
                f"`{func.name.value}`"
            )
        if why[0] == "op":
            _, qualname, trace = why
            return (
                f"it is computed by `{qualname}`, and every JAX operation inside traced code "
                f"returns a tracer ({self.describe(trace)})"
            )
        if why[0] == "call":
            _, qualname, trace = why
            return (
                f"it is returned by a function transformed with `{qualname}`, called inside "
                f"traced code ({self.describe(trace)})"
            )
        return "it is computed from traced values"


TRANSFORMED = "transformed function"
_DISPLAYS = {cst.List: "list", cst.Tuple: "tuple", cst.Dict: "dict"}
_KINDS = {STATIC: S, UNKNOWN: U, PYTREE: U, TRACED: U}


def _collective(value: Value) -> Value:
    """What `lax.psum`/`pmean`/`all_gather`... return for their first argument."""
    if value.kind == TRACED:
        return traced(value.why)
    if value.kind == PYTREE:
        return Value(PYTREE, value.why)
    if value.kind == STATIC and value.pytype is None:
        return S  # a Python scalar (or a pytree of them) comes back as one
    return U


def snippet(module: cst.Module, node: cst.CSTNode, limit: int = 40) -> str:
    """Short source text of `node` for messages."""
    text = " ".join(module.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalar_params(func: FuncNode) -> set[str]:
    """Parameters annotated as a Python scalar type (`flag: bool`, `n: int`)."""
    p = func.params
    return {
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is not None
        and type(x.annotation.annotation) is cst.Name
        and x.annotation.annotation.value in ("bool", "int", "float", "complex")  # type: ignore[attr-defined]
    }


def _is_method(func: cst.FunctionDef, path: Sequence[cst.CSTNode]) -> bool:
    return len(path) >= 2 and type(path[-2]) is cst.ClassDef


def is_traced(value: Value | None) -> bool:
    return value is not None and value.traced


def is_array(value: Value | None) -> bool:
    """Certainly an array (not a container of arrays)."""
    return value is not None and value.kind == TRACED
