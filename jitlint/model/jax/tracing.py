"""The JAX tracing model every JIT1xx rule queries: which code is traced, and which values
inside it are tracers.

A function is traced when a transformation is applied to it (see `transforms.py`: an
*entry*), when the runner hands over *inbound* calls from traced code in other files of the
run (see `model/jax/crossfile/records.py`), or when traced code calls it. The model is an abstract
interpreter: each *context* is one analysis of a function body for given abstract arguments
at one level (`Context`); calls inside it resolve through the module's names and classes to
functions, methods, constructors, partials, lambdas and transformed functions (`calls.py`),
each analysed in a context of its own for the call's arguments (memoised, within a budget;
what exceeds it is unknown). A function's `FunctionTrace` gathers its contexts; a rule asking
about a node inside it sees the node's value in the most traced of them.

Everything runs once per module, on the first question: the module's own code (at level 0,
so that calls made when the module runs reach the functions with their real arguments), then
every entry. A module nothing transforms is never interpreted.

Levels: ABSTRACT (jit, vmap, pmap, lax bodies, ...) where Python bool conversion of a tracer
fails; GRAD (grad family alone) where values stay concrete and it works; 0 for code no
transformation reaches (analysed only for JIT106, which needs "is this a JAX array?").
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.model.domain import plugins
from jitlint.model.domain.classes import (
    DISPLAY_TYPES,
    Classes,
    ClassInfo,
    built_attributes,
    container_attributes,
)
from jitlint.model.domain.flows import PASS, TEXT, Flows
from jitlint.model.domain.values import (
    NOT_NONE,
    PLAIN_OBJECT,
    PYTREE,
    STATIC,
    TRACED,
    TRANSFORMED,
    UNKNOWN,
    Array,
    BoundMethod,
    ClassRef,
    Dict,
    Env,
    Foreign,
    FunctionRef,
    Object,
    S,
    Scalar,
    Seq,
    U,
    Value,
    first_traced,
    is_none,
    join,
    literal,
    literal_truth,
    merged_instance,
    python_sequence,
    same_class_instances,
    same_scalar_type,
)
from jitlint.model.jax.analyzer import Analyzer, Context, ForeignRecord, default_value
from jitlint.model.jax.api import HOST_CALLBACKS
from jitlint.model.jax.calls import Calls
from jitlint.model.jax.crossfile import returned
from jitlint.model.jax.crossfile.class_facts import (
    SELF_CALL_KEY,
    ImportedPytrees,
    module_framework,
    self_calls,
)
from jitlint.model.jax.crossfile.reads import any_name_holding, defined_names
from jitlint.model.jax.crossfile.records import (
    Inbound,
    MadeWith,
    Received,
    bind_arguments,
    given_defaults,
    given_values,
    inbound_contribution,
    inbound_entry,
    jit_pytree_params,
    may_be_project_function,
    python_scalars,
    received_value,
    split_made_with,
)
from jitlint.model.jax.crossfile.returns import PLAIN_OBJECT_FACT, PREDICATE_FACT
from jitlint.model.jax.frameworks.contracts import (
    CONTRACTS,
    Assumptions,
    Contract,
    array_params,
    array_read_params,
    array_used_params,
    asked_contract,
    assumed_classes,
    assumed_functions,
    built_from_configuration,
    drivers_of_compiled,
    python_used_params,
    returns_python_value,
    submodule_classes,
    takes_no_arrays,
    tracer_testing_functions,
)
from jitlint.model.jax.frameworks.lifting import Lifting
from jitlint.model.jax.library import from_python
from jitlint.model.jax.narrowing import (
    array_guards,
    eager_only_flag,
    library_predicate,
    tracer_guards,
)
from jitlint.model.jax.pytree_fields import Instance, PytreeClasses, attach_instances
from jitlint.model.jax.static_args.hashable import StaticEvent
from jitlint.model.jax.transforms import (
    ABSTRACT,
    GRAD,
    Application,
    Discovery,
    Entry,
    FuncNode,
    Index,
    Transform,
    enclosing_function,
    none_test,
    param_names,
    plain_scalar_params,
    scalar_params,
    static_truth,
)
from jitlint.python.binding import Signature, flag_facts, not_none_at
from jitlint.python.builtins_facts import (
    CONTAINER_MUTATORS,
    LOG_METHODS,
    MAKES_TEXT,
    PRINT,
    WARN,
)
from jitlint.python.names import UNKNOWN as UNKNOWN_NAME
from jitlint.python.names import Names, base_class, is_none_literal, leaf_name
from jitlint.python.predicates import Predicate, predicate_of
from jitlint.python.uses import calls_in, returns_no_value
from jitlint.python.walker import descendants

__all__ = ["ABSTRACT", "GRAD", "TRANSFORMED", "Context", "FunctionTrace", "Tracing", "Value"]


class FunctionTrace:
    """What the model knows about one function body (or lambda, or the module)."""

    def __init__(self, tracing: Tracing, func: FuncNode | cst.Module, path: list[cst.CSTNode]):
        self.tracing = tracing
        self.func = func
        self.path = path  # from the module to the function's body
        self.entries: list[Entry] = []
        self.inbound: list[Inbound] = []  # calls from traced code in other files
        self.contexts: list[Context] = []
        self._top: list[Context] | None = None

    @property
    def name(self) -> str:
        if type(self.func) is cst.FunctionDef:
            return self.func.name.value  # type: ignore[union-attr]
        return "<lambda>" if type(self.func) is cst.Lambda else "<module>"

    @property
    def qualname(self) -> str:
        """`Cls.method` for a method, else the name."""
        path = self.path  # [..., class, its body, the function, its body]
        if len(path) >= 4 and type(path[-4]) is cst.ClassDef:
            return f"{path[-4].name.value}.{self.name}"  # type: ignore[attr-defined]
        return self.name

    @property
    def level(self) -> int:
        return max((c.level for c in self.contexts), default=0)

    @property
    def abstract(self) -> bool:
        """True where Python bool conversion of a tracer fails (jit, vmap, lax bodies...)."""
        return self.level >= ABSTRACT

    @property
    def analysing(self) -> bool:
        return any(c.analyzer is not None and c.analyzer.running for c in self.contexts)

    def top(self) -> list[Context]:
        """The analysed contexts at the function's level: the ones rules see."""
        if self._top is not None:
            return self._top
        level = self.level
        top = [c for c in self.contexts if c.level == level and c.analyzer is not None]
        if not self.tracing.solving:
            self._top = top
        return top

    @property
    def analyzer(self) -> Analyzer:
        """The first analysis at the function's level (the root one when there is one)."""
        top = self.top()
        if not top:
            raise LookupError("no analysed context")
        return top[0].analyzer  # type: ignore[return-value]

    @property
    def params(self) -> Env:
        top = self.top()
        if len(top) == 1:
            return top[0].params
        out: Env = {}
        for name in param_names(self.func) if type(self.func) is not cst.Module else ():  # type: ignore[arg-type]
            out[name] = merge([c.params.get(name, U) for c in top])
        return out

    def value(self, expr: cst.CSTNode) -> Value:
        key = id(expr)
        top = self.top()
        if len(top) == 1:
            return _seen(top[0].analyzer, key)
        return merge([_seen(c.analyzer, key) for c in top])

    def reaches(self, expr: cst.CSTNode) -> bool:
        """Whether some analysis at the function's level evaluated `expr`: a branch that the
        known arguments of every such call rule out (`if use_jnp:` called with True, `if size
        is None:` given `x.shape[0]`) never runs there. True when nothing was analysed."""
        top = self.top()
        if not top:
            return True
        key = id(expr)
        return any(key in c.analyzer.values or key in c.analyzer.sticky for c in top)  # type: ignore[union-attr]

    def summary(self, name: str) -> Value | None:
        """Every value `name` takes in the body (for functions closing over it)."""
        top = [c for c in self.top() if not c.analyzer.running]  # type: ignore[union-attr]
        found = [c.analyzer.summary[name] for c in top if name in c.analyzer.summary]  # type: ignore[union-attr]
        return merge(found) if found else None


def _seen(analyzer: Analyzer, key: int) -> Value:
    """A node's value in one analysis, as rules see it (traced on any pass)."""
    return analyzer.sticky.get(key) or analyzer.values.get(key, U)


def merge(values: Sequence[Value]) -> Value:
    """A node's value over several contexts: traced where any of them traces it (the hazard
    happens in that context), else what they agree on."""
    if len(values) == 1:
        return values[0]
    hit = next((v for v in values if v.kind == TRACED), None) or first_traced(values)
    if hit is not None:
        return hit
    # A context that knows nothing of the node does not erase what another one knows (a
    # Python list there is a list on that path).
    values = [v for v in values if type(v) is not Value or v.kind != UNKNOWN] or values
    out = values[0]
    for value in values[1:]:
        out = join(out, value)
    return out


class Tracing:
    def __init__(
        self,
        names: Names,
        inbound: Mapping[str, Sequence[Received]] | None = None,
        assumptions: Assumptions | None = None,
        source: str | None = None,
        one_file: bool = False,
    ) -> None:
        self.names = names
        self.module = names.module
        self.assumptions = assumptions or Assumptions()
        # The module's text, where known: a text gate for the bodies that test for tracers.
        self.source = source
        # top-level function name -> calls from, and applications in, other files
        # Kept as given (the project pass's `NotedInbound` notes what the model reads).
        self.inbound = inbound if inbound is not None else {}
        # A run of this file alone: what its project imports define is unknown, not absent.
        self.one_file = one_file
        self._traces: dict[int, FunctionTrace] = {}
        self._parts_memo: dict[int, dict[str, tuple[ClassInfo, bool]]] = {}
        self._untraced_traces: dict[int, FunctionTrace] = {}
        self._not_none_memo: dict[tuple[int, int], frozenset[str]] = {}
        self._flag_facts: dict[int, tuple[dict[str, cst.BaseExpression], frozenset[str]]] = {}
        self._qualnames: dict[int, frozenset[str]] = {}
        self._predicates: dict[int, Predicate | None] = {}
        self.solving = False
        self._solved = False
        # Static arguments JAX cannot hash, by the node to report at (see Calls._check_static).
        self.static_events: dict[int, list[StaticEvent]] = {}
        # Framework objects (not pytrees) passed to traced parameters of jitted functions.
        self.nonarray_events: dict[int, list[tuple[str, str, Any, cst.CSTNode]]] = {}
        # Arrays in the aux data of registered pytree classes given to jit, by tree_flatten.
        self.aux_events: dict[int, list[tuple[str, str, cst.CSTNode, cst.CSTNode]]] = {}
        # Calls and transformations of things other modules define that interpretation found
        # (`net.apply(x)` with `net` an instance of an imported class): for the project pass.
        self.foreign_records: list[ForeignRecord] = []
        # Calls on `self` from traced methods, by "Cls.method" (calls.py `_self_call`): a
        # subclass's override is traced with them, in this file and in others.
        self.self_calls: list[ForeignRecord] = []
        self._dispatched: set[int] = set()  # ids of the inbound calls such dispatch made
        # ids of functions whose jit decorator raises before tracing (`fails_before_tracing`):
        # their body never runs, per call or per trace.
        self.never_run: set[int] = set()
        self.module_context: Context | None = None
        if any_name_holding(self.inbound, SELF_CALL_KEY):
            self.inbound = {**self.inbound, **self._overrides_called_by_bases()}

    def release(self) -> None:
        """Break the model's reference cycles once the file's lint is over: each analysis
        holds its context and closures over itself, and each trace its model, and all hold
        nodes, so without this the whole tree waits for the cycle collector."""
        traces = [*self._traces.values(), *self._untraced_traces.values()]
        for trace in traces:
            for context in trace.contexts:
                analyzer = context.analyzer
                if analyzer is not None:
                    analyzer.__dict__.clear()
                context.analyzer = context.closure = context.trace = context.site = None
            trace.__dict__.clear()
        calls = self.__dict__.get("calls")
        if calls is not None:
            calls.__dict__.clear()
        self.__dict__.clear()

    @cached_property
    def discovery(self) -> Discovery:
        return Discovery(self.names)

    @cached_property
    def index(self) -> Index:
        return self.discovery.run()

    @cached_property
    def flows(self) -> Flows:
        """Where trace-time Python values go (`first_sink`, `state_sink`): see flows.py."""
        return Flows(self.names, _TraceOracle(self))

    @cached_property
    def pytree_classes(self) -> PytreeClasses:
        return PytreeClasses(self.names)

    @cached_property
    def classes(self) -> Classes:
        return Classes(self.names)

    @cached_property
    def imported_pytrees(self) -> ImportedPytrees:
        return ImportedPytrees(self.names, self.classes, self.pytree_classes, self.inbound)

    @cached_property
    def lifting(self) -> Lifting:
        """Raw jax transformations around flax linen or haiku modules (JIT120)."""
        return Lifting(self.names, self.classes)

    @cached_property
    def calls(self) -> Calls:
        return Calls(self)

    @cached_property
    def active(self) -> bool:
        """Whether anything in the module is traced at all (a cheap early exit for rules):
        an entry, an inbound call, or a transformation applied to something the discovery
        pass could not name (`f = jax.jit(f)`, `jax.jit(self.step)`), which interpreting
        the module may resolve."""
        index = self.index
        if index.entries or self.inbound or index.foreign:
            return True
        return bool(self.contract_classes or self.assumed_functions)

    @cached_property
    def contract_classes(self) -> list[tuple[ClassInfo, Contract]]:
        """The module's top-level classes whose framework traces some methods by contract:
        from their bases here, or from another file's facts about an imported base. Asked
        by `active`, the contract roots and the project pass: read once."""
        assumed = dict(
            (id(info), (info, contract))
            for info, contract in assumed_classes(self.names, self.classes, self.assumptions)
        )
        found = []
        for statement in self.module.body:
            if type(statement) is cst.ClassDef:
                info = self.classes.of(statement, [self.module])
                contract = CONTRACTS.get(self._framework(info) or "")
                if contract is not None:
                    found.append((info, contract))
                elif id(info) in assumed:
                    found.append(assumed[id(info)])
        return found

    @cached_property
    def assumed_functions(self) -> list[tuple[cst.FunctionDef, str, Contract]]:
        """The functions `assume-traced` names in this module, and those whose body tests for
        tracers (contracts.py); read once."""
        found = list(assumed_functions(self.names, self.assumptions))
        named = {id(func) for func, _, _ in found}
        testing = tracer_testing_functions(self.names, self.source)
        found += [f for f in testing if id(f[0]) not in named]
        return found

    def _framework(self, info: ClassInfo) -> str | None:
        if info.kind is not None or not self.inbound:
            return info.kind
        for cls in info.mro:
            for base in cls.node.bases:
                # Every meaning of the base (a set: its order is the hash seed's); meanings
                # of different frameworks leave the class's framework unknown.
                found = {
                    module_framework(self.inbound, qualname)
                    for qualname in self.names.qualified_names(base_class(base.value), cls.path)
                } - {None}
                if found:
                    return found.pop() if len(found) == 1 else None
        return None

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
        found = self.trace(func)
        return found if found is not None and found.level > 0 else None

    def paired_at(self, path: Sequence[cst.CSTNode]) -> bool:
        """Whether the end of `path` is in the body of a function the file makes into a pair
        (`hk.transform(f)`): it runs inside the pair's `init` and `apply`, traced or not."""
        paired = self._paired_ids
        return (
            bool(paired)
            and any(
                id(node) in paired and path[i + 1] is node.body  # type: ignore[attr-defined]
                for i, node in enumerate(path[:-1])
            )
        )

    @cached_property
    def _paired_ids(self) -> frozenset[int]:
        return frozenset(id(f) for f in self.index.paired)

    def any_function_at(self, path: Sequence[cst.CSTNode]) -> FunctionTrace | None:
        """Like `function_at`, but untraced code (level 0, the module too) also answers."""
        func = enclosing_function(path)
        if func is None:
            if any(type(node) is cst.ClassDef for node in path[:-1]):
                return None
            if self.active:
                self.solve()
                if self.module_context is not None:
                    return self.module_context.trace
            return self._untraced(self.module)
        found = self.trace(func) if self.active else None
        return found if found is not None else self._untraced(func)

    def traced_by_contract(self, path: Sequence[cst.CSTNode]) -> bool:
        """Whether the traced function holding the end of `path` is traced only because a
        framework's contract says so (no real entry or call of the run reaches it)."""
        found = self.function_at(path) if self._solved else None
        return found is not None and _contract_only(found)

    def value(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Value | None:
        """The value of `expr` (which ends `path`) if it is inside a traced function."""
        found = self.function_at(path)
        return found.value(expr) if found is not None else None

    def trace(self, func: FuncNode) -> FunctionTrace | None:
        """`func`'s trace, if any context analysed it (while solving: so far)."""
        self.solve()
        found = self._traces.get(id(func))
        return found if found is not None and found.top() else None

    def call_chains(self, trace: FunctionTrace, limit: int = 16) -> list[list[Application]]:
        """The ways the module's own code reaches `trace`'s function through calls the model
        followed, each as the transformations applied on the way, outermost first. Only
        chains known from end to end: none through an entry's root analysis (applied here,
        called from where?), a call from another file, or a transformation whose site the
        discovery cannot read."""
        self.solve()
        out: list[list[Application]] = []
        self._chains(trace, [], out, limit, 0)
        return out

    def _chains(
        self,
        trace: FunctionTrace,
        suffix: list[Application],
        out: list[list[Application]],
        limit: int,
        depth: int,
    ) -> None:
        if type(trace.func) is cst.Module:
            out.append(suffix)
            return
        if depth > 8:
            return
        seen: set[tuple[int, int]] = set()
        for context in trace.contexts:
            site = context.site
            if len(out) >= limit:
                return
            if not isinstance(site, tuple) or site[1] is None or context.analyzer is None:
                continue
            caller, call = site
            key = (id(caller), id(call))
            if caller is trace or key in seen:
                continue
            seen.add(key)
            applied = self._applied(context, caller, call)
            if applied is not None:
                self._chains(caller, applied + suffix, out, limit, depth + 1)

    def _applied(
        self, context: Context, caller: FunctionTrace, call: cst.CSTNode
    ) -> list[Application] | None:
        """The transformations the call that made `context` applies (none for a plain call);
        None when they are not known."""
        path = context.trace.path  # [..., class, its body, the function, its body]
        if len(path) >= 4 and type(path[-4]) is cst.ClassDef:
            owner = self.classes.of(path[-4], path[:-4])  # type: ignore[arg-type]
            if owner.kind is not None:
                return None  # a framework's module: its lifted transformations are not seen
        entry = context.entry
        if entry is not None:
            if entry.origin is not None or entry.contract is not None:
                return None
            return self.discovery.applications(entry)
        if type(call) is cst.Call:
            transform = self.discovery.resolve(call.func, [*caller.path, call])  # type: ignore[attr-defined]
            if transform is not None:  # a lax loop or branch running its body here
                return [Application(transform, tuple(call.args), call)]  # type: ignore[attr-defined]
        if context.level > caller.level:
            return None  # raised by something the model does not name (a lifted module)
        func = context.trace.func
        if type(func) is cst.FunctionDef and func.decorators:  # type: ignore[attr-defined]
            return None  # called as if plain, but what its decorators apply is not known
        return []

    # ---- solving ----------------------------------------------------------------------
    def solve(self) -> None:
        """Interpret the module once: its own code, then every entry (outermost first)."""
        if self._solved or self.solving or not self.active:
            return
        self.solving = True
        try:
            self._run_module()
            roots: list[tuple[int, int, FuncNode]] = []
            for order, entries in enumerate(self.index.entries.values()):
                func = entries[0].func
                roots.append((len(self.index.path(func) or ()), order, func))
            for order, func in enumerate(self._inbound_functions()):
                roots.append((1, -1 - order, func))
            for _, _, func in sorted(roots, key=lambda r: (r[0], r[1])):
                self._root(func)
            self._inbound_constructors()
            self._dispatch_self_calls()
            self._contract_roots()
        finally:
            self.solving = False
            self._solved = True

    def function_trace(self, func: FuncNode | cst.Module) -> FunctionTrace:
        key = id(func)
        found = self._traces.get(key)
        if found is None:
            if type(func) is cst.Module:
                path: list[cst.CSTNode] = [func]
            else:
                path = [*self._path_to(func), func, func.body]  # type: ignore[union-attr]
            found = self._traces[key] = FunctionTrace(self, func, path)
        return found

    def _run_module(self) -> None:
        trace = self.function_trace(self.module)
        context = Context(trace, 0, {})
        self.module_context = context
        self.analyse(context, invoke=True)

    def _inbound_functions(self) -> list[cst.FunctionDef]:
        out = []
        for name in defined_names(self.inbound):  # `_inbound_target` keeps no other
            found = self._inbound_target(name)
            if type(found) is cst.FunctionDef:
                out.append(found)
        return out

    def _inbound_target(self, name: str) -> cst.FunctionDef | cst.ClassDef | None:
        """What an inbound record's name reaches: a top-level `def` or class bound once by
        that statement, or `Class.method`, a method of such a class."""
        head, _, method = name.partition(".")
        bindings = self.names.scope(self.module).bindings.get(head)
        if not bindings or len(bindings) != 1:
            return None
        node = bindings[0].node
        if type(node) not in (cst.FunctionDef, cst.ClassDef):
            return None
        if self.index.path(node) != [self.module]:
            return None
        if not method:
            return node  # type: ignore[return-value]
        if type(node) is cst.FunctionDef:
            return self._nested_def(node, method)  # type: ignore[arg-type]
        if type(node) is not cst.ClassDef:
            return None
        cls = self.classes.of(node, [self.module])  # type: ignore[arg-type]
        framework = plugins.plugin(cls.kind)
        if framework and method in framework.apply_methods and method not in cls.methods:
            method = "__call__"  # `model.apply(variables, x)` from another file
        found = cls.methods.get(method)
        return found.func if found is not None and found.plain else None

    def _nested_def(self, func: cst.FunctionDef, name: str) -> cst.FunctionDef | None:
        """The undecorated `def` that `func`'s body binds `name` to once, by a statement of
        the body itself."""
        bindings = self.names.scope(func).bindings.get(name)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "def":
            return None
        node = bindings[0].node
        body = func.body
        if (
            type(node) is not cst.FunctionDef
            or node.decorators
            or type(body) is not cst.IndentedBlock
        ):
            return None
        return node if any(s is node for s in body.body) else None

    def _inbound_constructors(self) -> None:
        """Classes other files instantiate from traced code: run their constructors with the
        calls' arguments."""
        for name in defined_names(self.inbound):  # `_inbound_target` keeps no other
            node = self._inbound_target(name) if "." not in name else None
            if type(node) is not cst.ClassDef:
                continue
            records = self.inbound[name]
            cls = self.classes.of(node, [self.module])  # type: ignore[arg-type]
            for record in records:
                if not isinstance(record, Inbound):
                    continue
                module = self.function_trace(self.module)
                caller = Context(module, record.level, {}, staged=record.staged)
                init = cls.lookup("__init__")
                init_func = None
                jit_params: set[str] = set()
                if init is not None and init[1] == "method":
                    init_func = init[0].methods["__init__"].func
                    with_self = dataclasses.replace(record, args=((None, UNKNOWN), *record.args))
                    jit_params = jit_pytree_params(init_func, with_self)

                def wrap(
                    param: str,
                    kind: Value,
                    record: Inbound = record,
                    node: Any = node,
                    init_func: cst.FunctionDef | None = init_func,
                    jit_params: set[str] = jit_params,
                ) -> Value:
                    if kind.traced:
                        why = ("import", param, node, record)
                        value = Value(PYTREE if kind.kind == PYTREE else TRACED, why)
                        if init_func is not None and param in jit_params:
                            return self._jit_instance(init_func, param, value)
                        return value
                    return kind

                args = [(k, received_value(kind)) for k, kind in record.args]
                self.calls.construct(caller, None, cls, args, record.star, wrap=wrap)

    def _jit_instance(self, func: cst.FunctionDef, param: str, value: Value) -> Value:
        """`value`, a pytree argument of `jax.jit` that another file passes to `func`'s
        `param`, as an instance of the pytree class its annotation names
        (crossfile/class_facts.py)."""
        found = self.imported_pytrees.param(func, self._path_to(func), param)
        if found is None:
            return value
        cls, info = found
        return Object(info, kind=PYTREE, why=value.why, declared=Instance(cls, "jit"))

    def _root(self, func: FuncNode) -> None:
        """The context the entries (and inbound calls) of `func` make: parameters as each
        application's static spec says, joined over the applications at the highest level."""
        trace = self.function_trace(func)
        if any(c.site == "root" for c in trace.contexts):
            return
        contributions: list[tuple[int, dict[str, Value]]] = []
        # Per contribution: the parameters it would trace if given (see `_falsy_when_tested`).
        passable: list[frozenset[str]] = []
        entries = list(self.index.entries.get(id(func), []))
        inbound: list[Inbound] = []
        python_scalars_given: dict[str, Inbound] = {}  # parameter -> the call that gives it
        if type(func) is cst.FunctionDef:
            made: dict[int, MadeWith] = {}
            for received in self._inbound_calls(func):  # type: ignore[arg-type]
                if isinstance(received, Inbound):
                    received, made_with = split_made_with(received)
                    factory = made_with.factory if made_with is not None else None
                    if factory is not None and not self._factory_of(func, factory):  # type: ignore[arg-type]
                        continue  # not a method of a class that factory makes
                    if made_with is not None:
                        made[id(received)] = made_with
                if isinstance(received, Inbound) and received.level == 0:
                    # Called from Python in another file: not traced by that call, but a
                    # number or bool it passes reaches a jitted `func` as one array.
                    for name in python_scalars(func, received):  # type: ignore[arg-type]
                        python_scalars_given.setdefault(name, received)
                elif isinstance(received, Inbound):
                    inbound.append(received)
                else:
                    entry = inbound_entry(func, received)  # type: ignore[arg-type]
                    if entry is not None:
                        entries.append(entry)
        # A decorator that leaves `self` of a plain class traced: every call raises TypeError
        # before tracing (JIT111), so the body never runs under it.
        kept = [e for e in entries if not self.fails_before_tracing(e)]
        if entries and not kept:
            self.never_run.add(id(func))
        entries = kept
        trace.entries = entries
        trace.inbound = inbound
        staged = any(call.staged for call in inbound)  # calls from other files' traced code
        for entry in entries:
            level = entry.level
            staged = staged or entry.staged
            if entry.enclosing is not None:
                outer = self._traces.get(id(entry.enclosing))
                if outer is not None:
                    level = max(level, outer.level)
                    staged = staged or any(c.staged for c in outer.contexts if c.level > 0)
            scalars = scalar_params(entry.func)
            if entry.func is func:
                scalars = scalars | set(python_scalars_given)
            plain = plain_scalar_params(entry.func)
            params = {
                # A parameter annotated `bool`/`int`/`float` is one array, not a container.
                name: (
                    Array(("param", name, entry), sure=True)
                    if name in scalars
                    else Value(PYTREE, ("param", name, entry))
                )
                if kind == PYTREE
                # A static argument annotated `n: int` is an int: never None.
                else Scalar(plain[name])
                if kind == STATIC and name in plain
                else _KINDS[kind]
                for name, kind in entry.params.items()
            }
            star_kwarg = entry.func.params.star_kwarg  # type: ignore[attr-defined]
            if type(star_kwarg) is cst.Param and star_kwarg.name.value in params:
                # `**kwargs` is a dict whose keys the caller picks: its values are traced,
                # but `kwargs.get("t0", 0.0)` may well be the Python default.
                keyword = star_kwarg.name.value
                params[keyword] = Dict(elem=params[keyword], why=params[keyword].why)
            if entry.defaulted:
                # Every call of the transformed function leaves these out: their defaults.
                defaults = Signature.of(entry.func).default_of
                for name in entry.defaulted:
                    params[name] = default_value(defaults.get(name))
            for name, call in entry.given.items():
                # A call of the jitted def in this file passes a number: a tracer there.
                params[name] = Array(("passed", name, entry, call), sure=True)
            if entry.func is func:
                for name in given_defaults(entry, set(python_scalars_given)):
                    why = ("given", name, entry, python_scalars_given[name])
                    params[name] = Array(why, sure=True)
            path = self._path_to(entry.func)
            if entry.transform.style == "filter" and type(entry.func) is cst.FunctionDef:
                self._filter_params(entry, path, params, scalars)
            attach_instances(
                self.pytree_classes, self.classes, entry, path, params,
                self.imported_pytrees.annotated,
            )  # fmt: skip
            # A non-static argument is flattened by the transformation and rebuilt inside
            # the trace (a pytree's unflatten makes a new object): `self` there is not the
            # caller's object, so setting its attributes changes nothing outside the trace.
            first = param_names(entry.func)[:1]
            rebuilt = bool(first) and entry.params.get(first[0]) == PYTREE
            self._receiver(entry.func, path, params, None if rebuilt else 0)
            contributions.append((level, params))
            passable.append(entry.traced_if_passed if entry.func is func else frozenset())
        for call in inbound:
            given = inbound_contribution(func, call)  # type: ignore[arg-type]
            if id(call) in made:
                self._made_receiver(func, call, made[id(call)], given)  # type: ignore[arg-type]
            for name in jit_pytree_params(func, call):  # type: ignore[arg-type]
                if given.get(name, U).kind == PYTREE:
                    given[name] = self._jit_instance(func, name, given[name])  # type: ignore[arg-type]
            contributions.append((call.level, given))
            passable.append(frozenset())
        if not contributions:
            return
        level = max(c[0] for c in contributions)
        if inbound:
            # The object a call from traced code passes may have been made in that trace:
            # where it was made is unknown, unless a base method's own `self` passes it.
            outside = all(id(call) in self._dispatched for call in inbound)
            for _, given in contributions:
                self._receiver(func, self._path_to(func), given, 0 if outside else None)
        params: dict[str, Value] = {}
        for name in param_names(func):
            values = [c[1].get(name, U) for c in contributions if c[0] == level]
            hit = first_traced(values)
            if hit is not None:
                params[name] = hit
            elif len(values) == 1 and isinstance(values[0], Object):
                params[name] = values[0]  # `self` of a method, or a pytree class instance
            elif same_class_instances(values):
                params[name] = merged_instance(values)  # type: ignore[arg-type]
            elif all(v.kind == STATIC for v in values):
                # The same literal default at every call site keeps its value (see
                # project.default_value); anything else is just a Python value.
                first = values[0]
                same = literal_truth(first) is not None and all(
                    literal_truth(v) is not None and v.key() == first.key() for v in values
                )
                sequence = python_sequence(first)
                if same:
                    params[name] = first
                elif sequence is not None and all(python_sequence(v) == sequence for v in values):
                    params[name] = Value(STATIC, pytype=sequence)  # a Python list everywhere
                elif same_scalar_type(values):
                    params[name] = Scalar(first.pytype)  # an int everywhere: never None
                elif all(is_none(v) is False for v in values):
                    params[name] = NOT_NONE  # never None, whatever else it is
                else:
                    params[name] = S
            else:
                params[name] = U
        context = Context(trace, level, params, site="root", staged=staged)
        top = [given for (at, _), given in zip(contributions, passable, strict=True) if at == level]
        context.falsy_when_tested = _falsy_when_tested(func, params, top)
        for name in context.falsy_when_tested:
            params[name] = Value(UNKNOWN)  # its own object: a rebinding is told apart
        self.analyse(context, invoke=True)

    def fails_before_tracing(self, entry: Entry) -> bool:
        """`@jax.jit` (or `@partial(jax.jit, static_argnums=...)`) on a method whose `self`
        it leaves traced, of a class whose instances are visibly not pytrees nor arrays:
        calling it raises TypeError ("Error interpreting argument ... as an abstract array")
        before the body is traced, so the body never runs under it. `static_argnums` counts
        `self` (index 0), as jax.jit sees the plain function [observed on jax 0.10.2]."""
        func = entry.func
        if (
            entry.transform.style != "jit"
            or type(func) is not cst.FunctionDef
            or not any(d.decorator is entry.site for d in func.decorators)
        ):
            return False
        path = self._path_to(func)
        if len(path) < 2 or type(path[-2]) is not cst.ClassDef:
            return False
        receiver = next(iter(param_names(func)), None)
        if receiver is None or entry.params.get(receiver) != PYTREE:
            return False
        info = self.classes.of(path[-2], path[:-2])  # type: ignore[arg-type]
        method = info.methods.get(func.name.value)
        if method is None or method.func is not func or method.kind != "method":
            return False
        return all(
            not cls.open
            and not cls.registered
            and not plugins.has(cls.framework, "pytree")
            and not _ARRAY_PROTOCOL.intersection(cls.methods)
            for cls in info.mro
        )

    def _filter_params(
        self, entry: Entry, path: list[cst.CSTNode], params: dict[str, Value], scalars: set[str]
    ) -> None:
        """`eqx.filter_jit` traces the array leaves of its arguments and keeps everything else
        static: a parameter annotated as a JAX array is a tracer, one annotated as a Python
        scalar (`n: int`) or read only as a Python value (`range(n)`, `if flag:`) a static
        value."""
        func = entry.func
        for name in array_params(self.names, func, path):  # type: ignore[arg-type]
            if params.get(name, U).kind == UNKNOWN:
                params[name] = Array(("param", name, entry), sure=True)
        # In one order whatever the hash seed: the order names enter `params` is kept.
        for name in sorted(scalars | python_used_params(self.names, func, path)):  # type: ignore[arg-type]
            if params.get(name, U).kind == UNKNOWN:
                params[name] = S

    def _overrides_called_by_bases(self) -> dict[str, list[Received]]:
        """Inbound calls of this module's overrides that another file's base class makes
        on `self` from traced code (class_facts.self_calls), by "Cls.method"."""
        out: dict[str, list[Received]] = {}
        for statement in self.module.body:
            if type(statement) is not cst.ClassDef or type(statement.body) is not cst.IndentedBlock:
                continue
            methods = [s.name.value for s in statement.body.body if type(s) is cst.FunctionDef]
            for base in statement.bases:
                qualnames = self.names.qualified_names(base_class(base.value), [self.module])
                for qualname in sorted(qualnames):  # the calls in one order, whatever the seed
                    for method in methods:
                        name = f"{statement.name.value}.{method}"
                        for call in self_calls(self.inbound, qualname, method):
                            renamed = dataclasses.replace(call, function=name)
                            self._dispatched.add(id(renamed))
                            out.setdefault(name, []).append(renamed)
        return out

    def _dispatch_self_calls(self) -> None:
        """Trace the overrides, in this module's subclasses, of the methods that traced
        methods call on `self`: `Base.step` jitted calls `self.step_env(...)`, and
        `Game(Base)` defines `step_env`, which then runs in that trace."""
        done: set[tuple[int, str]] = set()
        for _ in range(3):  # an override's own self-calls may reach further overrides
            pending = [r for r in self.self_calls if (id(r), "") not in done]
            if not pending:
                return
            for record in pending:
                done.add((id(record), ""))
                base_name, _, method = record.target.partition(".")
                for info in self._subclasses(base_name):
                    own = info.methods.get(method)
                    name = f"{info.name}.{method}"
                    if (
                        own is None
                        or own.kind != "method"
                        or not own.plain
                        or (id(record), name) in done
                    ):
                        continue
                    done.add((id(record), name))
                    caller = record.context.trace
                    call = Inbound(
                        name, f"line {self.line(record.call)}", f"`{caller.qualname}`",
                        how_traced(caller), record.level, tuple(record.args), record.star,
                    )  # fmt: skip
                    self._dispatched.add(id(call))
                    inbound = dict(self.inbound)
                    inbound[name] = [*inbound.get(name, ()), call]
                    self.inbound = inbound
                    self._root(own.func)

    def _subclasses(self, base_name: str) -> list[ClassInfo]:
        """The module's top-level classes that derive from its top-level class `base_name`."""
        out = []
        base = None
        infos = [
            self.classes.of(s, [self.module]) for s in self.module.body if type(s) is cst.ClassDef
        ]
        for info in infos:
            if info.name == base_name:
                base = info
        if base is None:
            return []
        for info in infos:
            if info is not base and any(cls is base for cls in info.mro):
                out.append(info)
        return out[:8]

    def _contract_roots(self) -> None:
        """Interpret, at the traced level, the methods a framework's users call under jit
        (`Contract`) that no entry, inbound call or traced caller of the run reached."""
        asked = self.assumptions.module_constructors
        parts = submodule_classes([info for info, _ in self.contract_classes], self._module_class)
        for info, contract in self.contract_classes:
            if id(info.node) in parts:
                continue  # traced where the module that builds it calls it
            if contract.built_in_pair and self._built_in_pair(info):
                continue  # it runs where the pair's `apply` is called: the run shows where
            compilers = self._compilers(info)
            drivers = drivers_of_compiled(
                {n: m.func for n, m in info.methods.items()},
                {n for n, m in info.methods.items() if self._compiled_here(m.func)},
                compilers,
            )
            for name in sorted(contract.traced_methods(info.methods, asked)):
                method = info.methods.get(name)
                if method is None or method.kind != "method" or not method.plain:
                    continue
                if name == "__init__" and built_from_configuration(method.func):
                    continue  # a model built once, eagerly, from its configuration
                if returns_python_value(method.func):
                    continue  # a Python-side check: `-> bool` cannot come out of jit
                if name in compilers:
                    # It compiles the class's own step and runs it: an eager driver, read in
                    # Python, so that the step it compiles is traced where it calls it.
                    found = self._traces.get(id(method.func))
                    if found is None:
                        self._driver_root(method.func)
                    continue
                if name not in contract.methods and takes_no_arrays(
                    self.names, method.func, self._path_to(method.func)
                ):
                    continue  # a setup or driver step (`fit(self, data, steps=100)`)
                # A public method beyond the contract's own (a constructor returns nothing by
                # definition: `module-constructors` decides it).
                public = name not in contract.methods and name != "__init__"
                if public and name in drivers:
                    continue  # the Python loop around a step the class compiles itself
                if public and contract.immutable and returns_no_value(method.func):
                    continue  # called for its Python effects (`print_parameters`)
                found = self._traces.get(id(method.func))
                if found is not None and found.level > 0:
                    continue
                if name == "__init__" and contract.constructor_when_asked:
                    # only `module-constructors` traces it: the message says so
                    self._contract_root(method.func, info.name, asked_contract(contract))
                else:
                    self._contract_root(method.func, info.name, contract)
                self._reroot_nested(method.func)
        for func, owner, contract in self.assumed_functions:
            found = self._traces.get(id(func))
            # A traceback's evidence holds even where the run's own entry says less.
            untraced = found is None or found.level == 0
            if untraced or contract.parameters_traced:
                self._contract_root(func, owner, contract)
                if untraced:
                    self._reroot_nested(func)

    def _built_in_pair(self, info: ClassInfo) -> bool:
        """Whether a function of the file that a pair transformation wraps (`hk.transform(f)`)
        builds `info`'s class in its own body, and the run shows where each of its pairs
        goes (`_pair_stays`)."""
        for func in self.index.paired:
            path = [*self._path_to(func), func, func.body]
            for call in calls_in(func.body):
                if type(call.func) is not cst.Name or call.func.value != info.name:
                    continue
                bindings = self.names.lookup(info.name, path)
                if bindings and any(b.node is info.node for b in bindings):
                    if self._pair_stays(func):
                        return True
                    break
        return False

    def _pair_stays(self, func: FuncNode) -> bool:
        """Whether every pair the file makes of `func` stays in the run: one that a top-level
        factory returns (its return fact names a pair) leaves it where nothing of the file
        names the factory again and no other file of the run calls it (they say so:
        records.RETURNED), as a library's pair does."""
        for paired, enclosing in self.index.pair_sites:
            if paired is not func or type(enclosing) is not cst.FunctionDef:
                continue
            if self.index.path(enclosing) != [self.module]:
                continue
            if not returned.returns_pair(self.names, self.classes, enclosing):  # type: ignore[arg-type]
                continue
            if self._inbound_calls(enclosing) or self._named_again(enclosing):  # type: ignore[arg-type]
                continue
            return False
        return True

    def _named_again(self, func: cst.FunctionDef) -> bool:
        """Whether the module names `func` anywhere but in its own `def`."""
        name = func.name.value
        return any(
            type(node) is cst.Name and node.value == name and node is not func.name
            for node in descendants(self.module)
        )

    def _driver_root(self, func: cst.FunctionDef) -> None:
        """Interpret `func`, a method that compiles one of its instance's methods and runs it,
        in Python (level 0): only what its compiled calls trace is traced."""
        params: dict[str, Value] = {name: U for name in param_names(func)}
        self._receiver(func, self._path_to(func), params)
        trace = self.function_trace(func)
        self.analyse(Context(trace, 0, params, site="root"), invoke=True)

    def _compilers(self, info: ClassInfo) -> set[str]:
        """The methods of `info` whose own body compiles a method of their instance
        (`update_fn = eqx.filter_jit(self.step_fn)` in a training `__call__`)."""
        own = {id(m.func): n for n, m in info.methods.items() if m.kind == "method"}
        found = set()
        for application in self.index.foreign:
            method = application.enclosing
            target = application.target
            if (
                application.transform.verb != "compiles"
                or method is None
                or id(method) not in own
                or type(target) is not cst.Attribute
                or type(target.value) is not cst.Name  # type: ignore[attr-defined]
                or target.attr.value not in info.methods  # type: ignore[attr-defined]
            ):
                continue
            params = [*method.params.posonly_params, *method.params.params]  # type: ignore[union-attr]
            if params and target.value.value == params[0].name.value:  # type: ignore[attr-defined]
                found.add(own[id(method)])
        return found

    def _compiled_here(self, func: cst.FunctionDef) -> bool:
        """Whether this file compiles `func` itself (`@jax.jit`, `@eqx.filter_jit`, or
        `jax.jit(self.step)`), not only another file or a contract."""
        return any(
            e.transform.verb == "compiles" and e.origin is None and e.contract is None
            for e in self.index.entries.get(id(func), ())
        )

    def _reroot_nested(self, outer: cst.FunctionDef) -> None:
        """Entries inside `outer` (a `lax.fori_loop` body, a jitted closure) were rooted
        before the contract made `outer` traced, when what they close over was unknown: root
        them again now that `outer`'s values are there."""
        for entries in list(self.index.entries.values()):
            func = entries[0].func
            path = self.index.path(func) or ()
            if func is outer or not any(node is outer for node in path):
                continue
            trace = self._traces.get(id(func))
            if trace is None:
                continue
            trace.contexts = [c for c in trace.contexts if c.site != "root"]
            trace._top = None
            self._root(func)

    def _contract_root(self, func: cst.FunctionDef, owner: str, contract: Contract) -> None:
        path = self._path_to(func)
        entry = Entry(
            transform=Transform(contract.framework, ABSTRACT, "contract", verb="traces"),
            site=func, func=func, params={}, enclosing=None, level=ABSTRACT,
            contract=(owner, contract.says),
        )  # fmt: skip
        arrays = (
            array_params(self.names, func, path)
            | array_used_params(self.names, func, path)
            | array_read_params(self.names, func, path)
        )
        params: dict[str, Value] = {
            name: Array(("param", name, entry), sure=True) if name in arrays else U
            for name in param_names(func)
        }
        if contract.parameters_traced:
            python_typed = scalar_params(func) | _python_typed(func)
            for name in param_names(func)[1 if "." in owner else 0 :]:
                if params[name] is U and name not in python_typed:
                    params[name] = Value(PYTREE, ("param", name, entry))
        self._receiver(func, path, params)
        receiver = params.get(param_names(func)[0]) if param_names(func) else None
        if func.name.value == "__init__" and isinstance(receiver, Object):
            # Built under the caller's jit: the instance is made inside the trace.
            receiver.made_at, receiver.building = ABSTRACT, True
        elif isinstance(receiver, Object) and not receiver.fields:
            # What the class's own code always stores (`self.blocks = [...]`) is known of
            # any instance, wherever it was built: a Python list indexed by a tracer fails.
            for name, pytype in container_attributes(receiver.cls).items():
                receiver.fields[name] = Dict(elem=U) if pytype == "dict" else Seq(pytype, elem=U)
            # Its parts (`self.embeddings = Embeddings(cfg)`): calling one runs its class's
            # code, traced with this body (a part is not traced by contract on its own).
            for name, built in self._parts_of(receiver.cls).items():
                receiver.fields.setdefault(name, self._part(*built))
            if contract.made_in_trace:
                receiver.made_at = ABSTRACT
            elif contract.array_leaves_traced:
                # The module is handed to the user's `filter_jit` as an argument: its array
                # fields are tracers there, its static fields Python values.
                pytree = self.pytree_classes.of(receiver.cls.node, receiver.cls.path)
                if pytree is not None:
                    receiver.declared = Instance(pytree, "filter")
                    receiver.why = ("param", param_names(func)[0], entry)
        trace = self.function_trace(func)
        trace.entries = [*trace.entries, entry] if contract.parameters_traced else [entry]
        trace._top = None
        context = Context(trace, ABSTRACT, params, site="root")
        # What the annotation says is a JAX array, and no default stands in for: the users'
        # jit passes an array there, so the body's `if key is None:` fallback does not run.
        context.never_none = array_params(self.names, func, path)
        if not contract.parameters_traced:
            # No call of the run says its users leave out a parameter defaulting to None:
            # the body's `if p is None:` fallback is not what the contract traces.
            defaults = Signature.of(func).default_of
            context.never_none |= frozenset(
                name for name, default in defaults.items() if is_none_literal(default)
            )
        self.analyse(context, invoke=True)

    def _part(self, info: ClassInfo, listed: bool = False, depth: int = 0) -> Value:
        """An instance of `info` that a module builds as one of its parts (or a list of
        them), with the parts it builds itself in turn (a model's encoder, the encoder's
        layers), a few deep."""
        part = Object(info)
        if depth < 4:
            for name, (inner, inner_listed) in self._parts_of(info).items():
                if inner is not info:
                    part.fields[name] = self._part(inner, inner_listed, depth + 1)
        return Seq("list", elem=part) if listed else part

    def _parts_of(self, info: ClassInfo) -> dict[str, tuple[ClassInfo, bool]]:
        """`built_attributes` of a class of this module, read once per class."""
        found = self._parts_memo.get(id(info))
        if found is None:
            found = self._parts_memo[id(info)] = built_attributes(info, self._module_class)
        return found

    def _module_class(self, name: cst.Name) -> ClassInfo | None:
        """The class of this module that `name`, read at module level, is."""
        bindings = self.names.lookup(name.value, [self.module])
        if not bindings or len(bindings) != 1 or bindings[0].kind != "class":
            return None
        node = bindings[0].node
        return self.classes.of(node, [self.module]) if type(node) is cst.ClassDef else None

    def _receiver(
        self, func: FuncNode, path: list[cst.CSTNode], params: Env, made_at: int | None = 0
    ) -> None:
        """`self` of a method an entry reaches: an instance of its class (its fields unknown),
        so that `self.m(...)` resolves; a pytree class's instance is attached already."""
        if type(func) is not cst.FunctionDef or len(path) < 2:
            return
        if type(path[-2]) is not cst.ClassDef:
            return
        p = func.params  # type: ignore[union-attr]
        first = [*p.posonly_params, *p.params]
        if not first or any(
            leaf_name(d.decorator) in ("staticmethod", "classmethod") for d in func.decorators
        ):  # type: ignore[union-attr]
            return
        name = first[0].name.value
        value = params.get(name, U)
        if isinstance(value, Object):
            return
        cls = self.classes.of(path[-2], path[:-2])  # type: ignore[arg-type]
        kind = STATIC if value.kind == STATIC else UNKNOWN
        params[name] = receiver = Object(cls, kind=kind, why=value.why)
        receiver.made_at = made_at  # an argument: made outside the trace (0), or unknown

    def _factory_of(self, func: cst.FunctionDef, factory: str) -> bool:
        """Whether `func` is a method of a top-level class with a class method `factory`."""
        path = self._path_to(func)
        if len(path) != 3 or type(path[1]) is not cst.ClassDef:
            return False
        cls = self.classes.of(path[1], [self.module])  # type: ignore[arg-type]
        found = cls.lookup(factory)
        if found is None or found[1] != "method":
            return False
        return found[0].methods[factory].kind == "classmethod"

    def _made_receiver(
        self,
        func: cst.FunctionDef,
        call: Inbound,
        made_with: MadeWith,
        given: dict[str, Value],
    ) -> None:
        """`self` of a method another file calls on an instance it made of this module's
        class (`Kalman(noise).run(x)`): the instance this module's constructor makes from the
        same arguments, traced where the caller passed tracers."""
        path = self._path_to(func)
        if len(path) < 2 or type(path[-2]) is not cst.ClassDef or func.decorators:
            return
        p = func.params
        first = [*p.posonly_params, *p.params]
        if not first:
            return
        owner = path[-2]
        cls = self.classes.of(owner, path[:-2])  # type: ignore[arg-type]
        caller = Context(self.function_trace(self.module), call.level, {}, staged=call.staged)

        def wrap(param: str, kind: Value) -> Value:
            if kind.traced:
                return Value(
                    PYTREE if kind.kind == PYTREE else TRACED, ("import", param, owner, call)
                )
            return kind

        args = [(k, received_value(kind)) for k, kind in made_with.args]
        if made_with.factory is None:
            obj: Value | None = self.calls.construct(caller, None, cls, args, call.star, wrap=wrap)
        else:
            # `Cls.factory(...)`: what the class method returns, its arguments bound as the
            # constructor's would be.
            method = self.calls.member(caller, ClassRef(cls), made_with.factory)
            obj = None
            if isinstance(method, BoundMethod):
                receiver = [(None, method.receiver)]
                obj = self.calls.invoke(
                    caller, None, method.function, [*receiver, *args], call.star, wrap=wrap
                )
        if isinstance(obj, Object) and obj.cls is cls:
            obj.made_at = None  # in Python or in the caller's trace: the record does not say
            given[first[0].name.value] = obj

    def _inbound_calls(self, func: cst.FunctionDef) -> list[Received]:
        """The inbound calls and applications that reach `func`: it must be the module-level
        `def` its name is bound to, once (as the runner checked with the same rule), or a
        method of such a class."""
        if not self.inbound:
            return []
        path = self.index.path(func)
        name = func.name.value
        if path is not None and len(path) == 3 and type(path[1]) in (cst.ClassDef, cst.FunctionDef):
            # a method, or a `def` in a top-level function's body (a pair's function that
            # another file's traced code runs: `make.forward`)
            name = f"{path[1].name.value}.{name}"  # type: ignore[attr-defined]
        calls = list(self.inbound.get(name, ()))
        if func.name.value == "__call__" and "." in name:
            owner = name.rpartition(".")[0]
            for framework in plugins.plugins():
                adapt = framework.adapt_inbound
                for method in framework.apply_methods if adapt is not None else ():
                    if self._inbound_target(f"{owner}.{method}") is not func:
                        continue
                    for record in self.inbound.get(f"{owner}.{method}", ()):
                        adapted = adapt(record) if isinstance(record, Inbound) else None
                        if adapted is not None:
                            calls.append(adapted)
        if not calls:
            return []
        if self._inbound_target(name) is not func:
            # A decorated method: only calls made in Python reach it through its decorators.
            owner = self._inbound_target(name.partition(".")[0]) if "." in name else None
            if type(owner) is not cst.ClassDef or not func.decorators:
                return []
            method = self.classes.of(owner, [self.module]).methods.get(func.name.value)  # type: ignore[arg-type]
            if method is None or method.func is not func or method.kind != "method":
                return []  # a static or class method: the call passes no receiver
            return [c for c in calls if isinstance(c, Inbound) and c.level == 0]
        return calls

    def _untraced(self, func: FuncNode | cst.Module) -> FunctionTrace:
        """A level-0 analysis with unknown parameters, calling nothing: for JIT106 in code
        no context reaches."""
        key = id(func)
        found = self._untraced_traces.get(key)
        if found is None:
            if type(func) is cst.Module:
                path: list[cst.CSTNode] = [func]
                params: dict[str, Value] = {}
            else:
                path = [*self._path_to(func), func, func.body]  # type: ignore[union-attr]
                params = {name: U for name in param_names(func)}  # type: ignore[arg-type]
            found = FunctionTrace(self, func, path)
            context = Context(found, 0, params)
            found.contexts.append(context)
            self.analyse(context, invoke=False)
            self._untraced_traces[key] = found
        return found

    def _path_to(self, func: FuncNode | cst.ClassDef) -> list[cst.CSTNode]:
        known = self.index.path(func)
        return known if known is not None else [self.module]

    # ---- analysis ---------------------------------------------------------------------
    def analyse(self, context: Context, invoke: bool) -> Analyzer:
        """Run `context`'s body (registering it with its function's trace first, so that
        recursion sees it running)."""
        trace = context.trace
        if context not in trace.contexts:
            trace.contexts.append(context)
        func = trace.func
        local = set(self.names.scope(func).bindings)  # type: ignore[arg-type]
        analyzer = Analyzer(
            context.params,
            local,
            lambda name: self._free_value(context, name),
            lambda an, call: (
                self.calls.call_value(context, an, call)
                if invoke
                else self.calls.library_value(context, an, call)
            ),
            lambda an, node, base: self.calls.attribute_value(context, an, node, base),
        )
        analyzer.context = context
        analyzer.invoke = invoke
        analyzer.define = lambda an, node: self.calls.define(context, an, node)
        analyzer.store = lambda an, target, value: self.calls.store(context, an, target, value)
        if invoke:
            analyzer.item = lambda an, node, base, index: self.calls.item(
                context, node, base, index
            )

        def leaf_truth(test: cst.BaseExpression) -> bool | None:
            # Staged code never runs where jit is off, so there the flag reads False.
            if context.staged and eager_only_flag(test, lambda e: self.qualified(trace, e)):
                return False
            if type(test) is cst.Name and test.value in context.falsy_when_tested:  # type: ignore[attr-defined]
                name = test.value  # type: ignore[attr-defined]
                if analyzer.env.get(name) is context.params.get(name):  # not rebound
                    return False
            if type(test) is cst.Comparison and context.never_none:
                tested = none_test(test)  # type: ignore[arg-type]
                if tested is not None and tested[0] in context.never_none:
                    name, is_none_test = tested
                    if analyzer.env.get(name) is context.params.get(name):  # not rebound
                        return not is_none_test
            return None

        def known(name: str) -> Value | None:
            # A local's current value; a name the body does not bind: its closure's or
            # global's (a parameter of the enclosing function known not to be None).
            found = analyzer.env.get(name)
            if found is None and name not in analyzer.local_names:
                return analyzer.free(name)
            return found

        analyzer.truth = lambda test: static_truth(self.names, test, known, leaf_truth)
        analyzer.guards = tracer_guards(
            lambda expr: self.qualified(trace, expr),
            lambda call: (
                library_predicate(self.qualified(trace, call.func))
                or self.predicate(analyzer.values.get(id(call.func)))
            ),
            self._opaque_call(analyzer) if self.one_file else None,
        ).facts
        analyzer.not_arrays = array_guards(lambda expr: self.qualified(trace, expr)).facts
        context.analyzer = analyzer
        analyzer.run_function(func)  # type: ignore[arg-type]
        return analyzer

    def _free_value(self, context: Context, name: str) -> Value:
        """A name the body reads but does not bind: a closure, a global or a builtin."""
        closure = context.closure
        if closure is not None:
            found = closure.env.get(name)
            if found is None:
                found = closure.summary.get(name)
            if found is not None:
                owner = closure.context.func if closure.context is not None else None
                return self._guarded(context, owner, name, found)
            if name not in closure.local_names:
                return closure.free(name)
            return U
        trace = context.trace
        if type(trace.func) is cst.Module:
            # `True`/`False`/`None` in module-level code (`step(x, True)`) keep their value.
            known = literal(name)
            return known if known is not None else U
        found_bindings = self.names.lookup_with_path(name, trace.path)
        if found_bindings is None:
            known = literal(name)
            return known if known is not None else S  # a builtin
        bindings, scope_path = found_bindings
        owner = scope_path[-2] if len(scope_path) >= 2 else scope_path[-1]
        if type(owner) is cst.Module:
            return self._global_value(name, bindings, scope_path)
        value = self._enclosing_value(name, owner, bindings, scope_path)
        return self._guarded(context, owner, name, value)

    def _guarded(self, context: Context, owner: Any, name: str, value: Value) -> Value:
        """`value`, the enclosing function's `name` as `context` reads it; NOT_NONE where
        every way into `context` passes a branch that proves it is not None."""
        if (
            type(owner) is cst.FunctionDef
            and not value.traced
            and is_none(value) is not False
            and self._entered_not_none(context.trace, context, owner, name, 0)
        ):
            return NOT_NONE
        return value

    def _enclosing_value(
        self, name: str, owner: cst.CSTNode, bindings: list[Any], scope_path: list[cst.CSTNode]
    ) -> Value:
        """A name of the function `owner` that a function defined in it reads: what the
        analyses of `owner` gave it, else what its one binding says."""
        if type(owner) in (cst.FunctionDef, cst.Lambda):
            outer = self._traces.get(id(owner))
            if outer is not None and outer.level > 0:
                value = outer.summary(name)
                if value is not None:
                    return value
            if outer is not None and outer.contexts:
                value = outer.summary(name)
                if value is not None:
                    return from_python(value)
        if len(bindings) == 1 and bindings[0].kind == "param" and type(owner) is cst.FunctionDef:
            given = self._given_in_python(owner, name)
            if given is not None:
                return given
        if len(bindings) == 1:
            return self._binding_value(bindings[0], scope_path)
        return S

    def _given_in_python(self, func: cst.FunctionDef, name: str) -> Value | None:
        """The value every call made in Python in another file gives `func`'s parameter
        `name`, where each passes the same value the records carry (a pair of functions:
        crossfile/returned.py `argument_fact`); None otherwise."""
        calls = [c for c in self._inbound_calls(func) if isinstance(c, Inbound)]
        # A call site may also send a record of its numbers (project/outbound.py).
        sites = {c.site for c in calls if given_values(c)}
        if not sites or any(c.level > 0 or c.site not in sites for c in calls):
            return None
        facts = set()
        for call in (c for c in calls if given_values(c)):
            markers = {index: Value(UNKNOWN) for index, _ in call.values}
            args = [
                (keyword, markers.get(index, U)) for index, (keyword, _) in enumerate(call.args)
            ]
            bound = bind_arguments(func, args, call.star, lambda _name, value: value)
            found = bound.get(name)
            fact = next((f for i, f in call.values if markers.get(i) is found), None)
            if fact is None:
                return None
            facts.add(fact)
        if len(facts) != 1:
            return None
        origin = f"`{func.name.value}`"
        return returned.decode(facts.pop(), func, origin)

    def _entered_not_none(
        self,
        trace: FunctionTrace,
        context: Context | None,
        owner: cst.FunctionDef,
        name: str,
        depth: int,
    ) -> bool:
        """Every way into `trace`'s function (only `context`'s, when given) starts at a
        site in `owner` that the branches around it guard with `name` not None
        (python/binding.py `not_none_at`): a transformation's application (`if grid is not
        None: jax.lax.scan(step, ...)`), or a call from `owner` or from a function nested in
        it that is itself entered so (`step` calling `physics`, both defined in `owner`).
        The runs of `owner` that do not take that branch never reach the name's reader."""
        if depth > 4:
            return False
        contexts = [context] if context is not None else list(trace.contexts)
        if not contexts:
            return False
        for each in contexts:
            site = each.site
            if site == "root":
                # Every contribution of a root: its applications, no other file's calls.
                entries = trace.entries
                if (
                    not entries
                    or trace.inbound
                    or any(
                        e.enclosing is not owner or name not in self._not_none_at(owner, e.site)
                        for e in entries
                    )
                ):
                    return False
            elif type(site) is tuple and len(site) == 2:
                caller, call = site
                func = caller.func
                if func is owner:
                    if name not in self._not_none_at(owner, call):
                        return False
                elif (
                    type(func) is cst.Module
                    or not self._nested_in(func, owner)
                    or not self._entered_not_none(caller, None, owner, name, depth + 1)
                ):
                    return False
            else:
                return False
        return True

    def _not_none_at(self, owner: cst.FunctionDef, site: cst.CSTNode) -> frozenset[str]:
        key = (id(owner), id(site))
        found = self._not_none_memo.get(key)
        if found is None:
            facts = self._flag_facts.get(id(owner))
            if facts is None:
                facts = self._flag_facts[id(owner)] = flag_facts(owner)
            found = self._not_none_memo[key] = not_none_at(owner, site, facts)
        return found

    def _nested_in(self, func: cst.CSTNode, owner: cst.CSTNode) -> bool:
        path = self.index.path(func)
        return path is not None and any(node is owner for node in path)

    def _global_value(self, name: str, bindings: list[Any], scope_path: list[cst.CSTNode]) -> Value:
        if len(bindings) == 1:
            binding = bindings[0]
            if binding.kind in ("def", "class", "import"):
                return self._binding_value(binding, scope_path)
            if binding.kind == "assign" and self.module_context is not None:
                analyzer = self.module_context.analyzer
                if analyzer is not None and not analyzer.running:
                    found = analyzer.env.get(name)
                    if found is not None:
                        return from_python(found)
            return self._binding_value(binding, scope_path)
        return S

    def _binding_value(self, binding: Any, scope_path: list[cst.CSTNode]) -> Value:
        if binding.kind == "import":
            qualname = binding.qualname or ""
            if may_be_project_function(qualname) and qualname.split(".")[0] not in _STDLIB:
                if any(
                    getattr(r, "status", "") == PLAIN_OBJECT_FACT
                    for r in self.inbound.get(qualname, ())
                ):
                    return PLAIN_OBJECT  # another file's `sentinel = object()`
                return Foreign(qualname)
            return S
        if binding.kind == "def":
            return self.calls.function_value(binding.node, None, scope_path)
        if binding.kind == "class":
            return ClassRef(self.classes.of(binding.node, scope_path))
        if binding.kind == "assign":
            pytype = DISPLAY_TYPES.get(type(binding.node))
            if pytype is not None:
                return Value(STATIC, pytype=pytype)
            if self._makes_instance(binding.node, scope_path):
                return NOT_NONE
        return S

    def _makes_instance(self, expr: cst.CSTNode, path: list[cst.CSTNode]) -> bool:
        """`expr` calls a class (of this module, or a pytree class another file's facts
        describe): its value is an instance, never None (`grid = Grid(n)` read by a
        function defined beside it)."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name:  # type: ignore[attr-defined]
            return False
        callee: cst.Name = expr.func  # type: ignore[attr-defined]
        found = self.names.lookup_with_path(callee.value, path)
        if found is None or len(found[0]) != 1:
            return False
        kind = found[0][0].kind
        if kind == "class":
            return True
        return kind == "import" and self.imported_pytrees.annotated(callee, path) is not None

    @staticmethod
    def _opaque_call(analyzer: Analyzer) -> Callable[[cst.Call], bool]:
        """In a one-file run, a call of a function another module of the project defines: its
        body is not in the run, so it may be a tracer test (numpyro's `not_jax_tracer`)."""

        def opaque(call: cst.Call) -> bool:
            callee = analyzer.values.get(id(call.func))
            return type(callee) is Foreign and callee.role == "name"

        return opaque

    def predicate(self, callee: Value | None) -> Predicate | None:
        """The type-test summary of the function `callee` (a value the analyzer gave a called
        expression): from its `def` in this file, or from the project pass's record of another
        file's function (model/jax/crossfile/returns.py)."""
        if type(callee) is FunctionRef and type(callee.func) is cst.FunctionDef:
            key = id(callee.func)
            if key not in self._predicates:
                self._predicates[key] = predicate_of(
                    self.names, callee.func, self._path_to(callee.func)
                )
            return self._predicates[key]
        if type(callee) is Foreign and callee.role == "name":
            for record in self.inbound.get(callee.path, ()):
                status = getattr(record, "status", "")
                if status.startswith(PREDICATE_FACT):
                    return Predicate.decode(status[len(PREDICATE_FACT) :])
        return None

    def qualified(self, trace: FunctionTrace, expr: cst.CSTNode) -> frozenset[str]:
        key = id(expr)
        found = self._qualnames.get(key)
        if found is None:
            found = self._qualnames[key] = self.names.qualified_names(expr, trace.path)
        return found

    # ---- explanations -----------------------------------------------------------------
    def describe(self, trace: FunctionTrace) -> str:
        """ "`f`, which `jax.jit` compiles at line 12" for the first application."""
        name = f"`{trace.qualname}`" if trace.name != "<lambda>" else "this lambda"
        if trace.entries:
            entry = max(trace.entries, key=lambda e: e.level)
            if entry.contract is not None:
                return f"{name}, {contract_words(entry)}"
            return (
                f"{name}, which `{entry.transform.qualname}` {entry.transform.verb} "
                f"{self.where(entry)}"
            )
        if trace.inbound:
            first = trace.inbound[0]
            return f"{name}, which {first.caller} ({first.site}) calls from traced code"
        entry = next((c.entry for c in trace.top() if c.entry is not None), None)
        if entry is not None:
            return (
                f"{name}, which `{entry.transform.qualname}` {entry.transform.verb} "
                f"{self.where(entry)}"
            )
        site = next(
            (c.site for c in trace.top() if isinstance(c.site, tuple) and c.site[1] is not None),
            None,
        )
        if site is not None:
            caller, call = site
            if type(caller.func) is cst.Module:
                # module code running it, as `jax.jit(net.apply)` and its call do
                func = getattr(call, "func", None)
                spelled = snippet(self.module, func if type(func) is cst.Call else call)
                return f"{name}, which `{spelled}` traces at line {self.line(call)}"
            text = f"{name}, which `{caller.qualname}` calls at line {self.line(call)}"
            root = _called_root(caller)
            if root is not None:
                text += f"; {self.describe(root)}"
            return text
        return f"{name}, which traced code calls"

    def where(self, entry: Entry) -> str:
        """ "at line 12", or "at pkg/train.py:12" for an application in another file."""
        if entry.contract is not None:
            return f"when `{entry.contract[0]}` is called under jit"
        if entry.origin is not None:
            return f"at {entry.origin}"
        return f"at line {self.line(entry.site)}"

    def explain(self, value: Value, depth: int = 0) -> str:
        """Why `value` is traced, in words."""
        why = value.why
        if not why:
            return "it is computed from traced values"
        if why[0] in ("param", "passed", "leaf", "given"):
            name, entry = why[1], why[2]
            if entry.contract is not None:
                qualname = self.function_trace(entry.func).qualname
                if entry.transform.qualname == "frame":
                    return f"`{name}` is a parameter of `{qualname}`, {contract_words(entry)}"
                said = _array_said(self.names, entry.func, self._path_to(entry.func), name)
                return (
                    f"`{name}` is {said} an array and is a parameter of "
                    f"`{qualname}`, {contract_words(entry)}"
                )
            func_name = (
                f"`{entry.func.name.value}`" if type(entry.func) is cst.FunctionDef else "a lambda"
            )
            transform = entry.transform
            article = "a non-static" if transform.style in ("jit", "pmap", "ckpt") else "an"
            if why[0] == "leaf":
                text = (
                    f"it comes from a leaf of `{name}`, {article} argument of {func_name}, "
                    f"which `{transform.qualname}` {transform.verb} {self.where(entry)} (every "
                    "leaf of a traced argument is a tracer)"
                )
            else:
                text = (
                    f"`{name}` is traced because it is {article} argument of {func_name}, "
                    f"which `{transform.qualname}` {transform.verb} {self.where(entry)}"
                )
            if why[0] == "given":
                call = why[3]
                text += f", and {call.caller} ({call.site}) passes it a number or an array"
            elif why[0] == "passed" or (why[0] == "leaf" and len(why) > 3):
                text += f", and the call at line {self.line(why[3])} passes it"
            return text
        if why[0] == "arg":
            _, name, caller, call, inner = why[:5]
            callee = why[5] if len(why) > 5 else None
            if callee is not None:
                text = (
                    f"`{name}` is traced because `{caller.qualname}` passes a traced value to "
                    f"{callee} at line {self.line(call)}"
                )
            else:
                text = (
                    f"`{name}` is traced because `{caller.qualname}` passes it a traced value "
                    f"at line {self.line(call)}"
                )
            if depth < 3 and inner:
                text += f" ({self.explain(Value(TRACED, inner), depth + 1)})"
            return text
        if why[0] == "body":
            _, name, passer, call, caller = why
            what = "a leaf of a traced pytree" if passer == "tree_map" else "a tracer"
            return (
                f"`{name}` is traced because `{passer}` passes it {what} at line {self.line(call)}"
            )
        if why[0] == "field":
            _, attr, instance, owner = why
            text = f"`{attr}` is a non-static field of `{instance.cls.name}`"
            if owner and owner[0] == "import" and instance.style == "jit":
                _, name, _, call = owner
                return (
                    f"{text}, and {call.origin}, passes `{name}` a pytree argument of `jax.jit`, "
                    "which traces every leaf (Python ints too)"
                )
            if not owner or owner[0] != "param":
                return text
            name, entry = owner[1], owner[2]
            if entry.contract is not None:
                return f"{text} (an array leaf), {contract_words(entry)}"
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


_STDLIB = frozenset(sys.stdlib_module_names)
_KINDS = {STATIC: S, UNKNOWN: U, PYTREE: U, TRACED: U}


class _TraceOracle:
    """What flows.py asks of the JAX model."""

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing

    def _trace(self, path: Sequence[cst.CSTNode]) -> FunctionTrace | None:
        found = self.tracing.function_at(path)
        return found if found is not None and found.abstract else None

    def traced(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        found = self._trace(path)
        return found is not None and found.value(expr).traced

    def in_trace(self, path: Sequence[cst.CSTNode]) -> bool:
        return self._trace(path) is not None

    def call_use(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> str:
        func = call.func
        names = self.tracing.names.qualified_names(func, path)
        if any(name.startswith(("jax.", "numpy.")) for name in names):
            return TEXT if names <= HOST_CALLBACKS else PASS
        if names & (PRINT | WARN | MAKES_TEXT):
            return TEXT
        if type(func) is cst.Attribute:
            # stored in a container, logged (a logger object's method too), or formatted
            leaf = func.attr.value
            if leaf in CONTAINER_MUTATORS or leaf in LOG_METHODS or leaf in ("format", "join"):
                return TEXT
        return PASS


def _called_root(trace: FunctionTrace) -> FunctionTrace | None:
    """The first function up `trace`'s chain of first callers that module code calls (a
    `jax.jit(net.apply)(...)` of the module running a pair's function), when no function on
    the way has an entry or inbound call of its own."""
    seen = trace
    for _ in range(6):
        if seen.entries or seen.inbound:
            return None
        site = next(
            (c.site for c in seen.top() if isinstance(c.site, tuple) and c.site[1] is not None),
            None,
        )
        if site is None:
            return None
        if type(site[0].func) is cst.Module:
            return seen
        seen = site[0]
    return None


_PARTICIPLES = {"compiles": "compiled", "traces": "traced", "differentiates": "differentiated"}


def _falsy_when_tested(
    func: FuncNode, params: Env, applications: list[frozenset[str]]
) -> frozenset[str]:
    """The parameters of a root context whose truth is False wherever a test of them
    completes: every application at its level is a jit that traces the parameter when a
    call gives it (`render=False` not static), so the body sees either its Python default
    or a tracer, whose test raises before any branch runs. Only a `False` default: jit
    passes None through, and a container given for a number (`axis=(0, 1)` for `axis=0`)
    is truthy."""
    if not applications or type(func) is not cst.FunctionDef:
        return frozenset()
    shared = frozenset.intersection(*applications)
    if not shared:
        return frozenset()
    defaults = Signature.of(func).default_of  # type: ignore[arg-type]
    return frozenset(
        name
        for name in shared
        if params.get(name, U).kind == UNKNOWN
        and type(default := defaults.get(name)) is cst.Name
        and default.value == "False"
    )


def how_traced(caller: FunctionTrace) -> str:
    """How a caller is traced, for messages: "compiled by `jax.jit`"."""
    if caller.entries:
        transform = max(caller.entries, key=lambda e: e.level).transform
        participle = _PARTICIPLES.get(transform.verb, "traced")
        return f"{participle} by `{transform.qualname}`"
    if caller.inbound:
        first = caller.inbound[0]
        return f"called by {first.caller} ({first.site})"
    return "called from traced code"


def _contract_only(trace: FunctionTrace, depth: int = 0) -> bool:
    """Whether every way the model found to `trace` starts at a contract."""
    if depth > 6 or trace.inbound:
        return False
    if trace.entries:
        return all(e.contract is not None for e in trace.entries)
    callers = [c.site[0] for c in trace.top() if isinstance(c.site, tuple)]
    return bool(callers) and all(_contract_only(c, depth + 1) for c in callers)


def _python_typed(func: cst.FunctionDef) -> set[str]:
    """Parameters annotated as Python values no jit traces (`str`, a `Callable`)."""
    p = func.params
    return {
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is not None
        and leaf_name(x.annotation.annotation) in ("str", "Callable", "bytes", "type")
    }


def contract_words(entry: Entry) -> str:
    """How a body traced by contract is traced: "traced when `Gate` is called under jit
    (equinox modules are meant to be)"."""
    owner, says = entry.contract  # type: ignore[misc]
    return f"traced when `{owner}` is called under jit ({says})"


def snippet(module: cst.Module, node: cst.CSTNode, limit: int = 40) -> str:
    """Short source text of `node` for messages."""
    text = " ".join(module.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_traced(value: Value | None) -> bool:
    return value is not None and value.traced


def is_array(value: Value | None) -> bool:
    """Certainly an array (not a container of arrays)."""
    return value is not None and value.kind == TRACED


def unknown_name(qualnames: frozenset[str]) -> bool:
    return not qualnames or UNKNOWN_NAME in qualnames


# Methods that make a class's instances pytrees or arrays.
_ARRAY_PROTOCOL = frozenset(
    {"tree_flatten", "tree_flatten_with_keys", "__jax_array__", "__array__"}
)


def _array_said(names: Names, func: FuncNode, path: Sequence[cst.CSTNode], name: str) -> str:
    """How a contract knows its parameter `name` is an array: its annotation, every read
    (`array_used_params`), or a read only arrays admit that no other read doubts."""
    if _annotated(func, name):
        return "annotated as"
    if type(func) is cst.FunctionDef and name in array_used_params(names, func, path):
        return "read only as"
    return "read as"


def _annotated(func: FuncNode, name: str) -> bool:
    """Whether `func`'s parameter `name` has an annotation (else a contract found it read
    only as an array: `array_used_params`)."""
    if type(func) is not cst.FunctionDef:
        return False
    p = func.params
    return any(
        x.name.value == name and x.annotation is not None
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
    )
