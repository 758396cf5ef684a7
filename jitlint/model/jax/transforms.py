"""Which functions JAX transformations trace, found in one pass over the module.

Every spelling users write is an application of a transformation to a function: a decorator
(`@jax.jit`, `@partial(jax.jit, static_argnames=...)`, `@jax.jit(...)`), a call
(`g = jax.vmap(f)`, `jax.jit(f)(x)`, `lax.scan(body, ...)`), possibly with the function
wrapped in `functools.partial` or in another transformation. Each application becomes an
`Entry`: the function, the transformation, and for each parameter whether that application
makes it traced (PYTREE), static (STATIC) or leaves it unknown (UNKNOWN).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst

from jitlint.model.domain.plugins import ABSTRACT, GRAD, plugins
from jitlint.model.domain.values import (
    PYTREE,
    STATIC,
    UNKNOWN,
    Value,
    is_none,
    literal_truth,
)
from jitlint.model.jax.jit import spec_from_args
from jitlint.model.library.jax_facts import axis_transform, shard_map_none_spec_argument
from jitlint.python.binding import (
    DOUBLE_STARRED,
    STARRED,
    Signature,
    bind,
    bind_call,
    never_passed,
)
from jitlint.python.builtins_facts import PARTIAL, SCALAR_TYPES
from jitlint.python.names import Names, leaf_name
from jitlint.python.uses import calls_of_name, calls_of_result
from jitlint.python.walker import iter_children

FuncNode = cst.FunctionDef | cst.Lambda
T = TypeVar("T")


@dataclass(frozen=True)
class Transform:
    """A JAX transformation: what it traces, and which of its arguments are functions."""

    qualname: str
    level: int
    # How parameters are treated: jit, vmap, pmap, grad, all, filter, ckpt, shard; "lifted"
    # (a framework's lifted transformation: the module comes first) or "pair" (a function
    # made into a pair of pure functions, `hk.transform`: it traces nothing by itself; the
    # function runs where the pair's `apply`/`init` is called, traced or not).
    style: str
    targets: tuple[int, ...] = (0,)  # positions of the traced functions among the arguments
    target_keywords: tuple[str, ...] = ("fun", "f", "fn")
    verb: str = "traces"
    # Abstract evaluation only: it traces the function for its shapes or its jaxpr and never
    # runs it (`jax.eval_shape`, `jax.make_jaxpr`); the trace is what the caller asked for.
    abstract_only: bool = False
    # Its positional parameters in order, the traced function's included, as far as the table
    # knows them (its keywords beyond them are collected as options), and whether `*operands`
    # follow them (`lax.cond(pred, true_fun, false_fun, *operands)`).
    parameters: tuple[str, ...] = ()
    operands: bool = False
    # It stages every operation of its body (jit, lax bodies): under vmap or grad alone an
    # operation on none of the transformed values returns a concrete array (TransformSpec).
    stages: bool = True

    @property
    def traces_every_call(self) -> bool:
        """It keeps no trace cache (remat, grad): the function is traced again on every call,
        once, as it would run, so a side effect in it happens as often as without it."""
        return self.style in ("ckpt", "grad")

    @property
    def signature(self) -> Signature:
        """The parameters as the call binder takes them."""
        return Signature(
            self.parameters,
            var_positional="operands" if self.operands else None,
            var_keyword="options",
        )


# `jax.lax`'s control flow, and the frameworks' packages that mirror it (`hk.scan`).
LAX_MIRRORS = ("jax.lax.", *(prefix for p in plugins() for prefix in p.lax_mirrors))


def _table() -> dict[str, Transform]:
    table: dict[str, Transform] = {}

    def add(names: Sequence[str], *args: object, **kwargs: object) -> None:
        for name in names:
            table[name] = Transform(name, *args, **kwargs)  # type: ignore[arg-type]

    add(["jax.jit", "jax.pjit", "jax.experimental.pjit.pjit"], ABSTRACT, "jit", verb="compiles")
    add(["jax.vmap", "jax.numpy.vectorize"], ABSTRACT, "vmap", parameters=_STYLE_PARAMETERS["vmap"],
        stages=False)  # fmt: skip
    add(["jax.pmap"], ABSTRACT, "pmap", verb="compiles")
    grads = ["jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian"]
    add(grads, GRAD, "grad", verb="differentiates", parameters=_STYLE_PARAMETERS["grad"],
        stages=False)  # fmt: skip
    add(["jax.jvp", "jax.vjp", "jax.linearize"], GRAD, "all", verb="differentiates", stages=False)
    add(["jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint"], ABSTRACT, "ckpt")
    add(["jax.eval_shape", "jax.make_jaxpr"], ABSTRACT, "ckpt", abstract_only=True)
    shard_maps = ["jax.shard_map", "jax.experimental.shard_map.shard_map"]
    add(shard_maps, ABSTRACT, "shard", parameters=_STYLE_PARAMETERS["shard"])
    for prefix in LAX_MIRRORS:
        add([prefix + "scan"], ABSTRACT, "all", parameters=("f", "init", "xs", "length"))
        add([prefix + "map"], ABSTRACT, "all", parameters=("f", "xs"))
        add([prefix + "cond"], ABSTRACT, "all", (1, 2), ("true_fun", "false_fun"),
            parameters=("pred", "true_fun", "false_fun"), operands=True)  # fmt: skip
        add([prefix + "switch"], ABSTRACT, "all", (1,), ("branches",),
            parameters=("index", "branches"), operands=True)  # fmt: skip
        add([prefix + "fori_loop"], ABSTRACT, "all", (2,), ("body_fun",),
            parameters=("lower", "upper", "body_fun", "init_val"))  # fmt: skip
        add([prefix + "while_loop"], ABSTRACT, "all", (0, 1), ("cond_fun", "body_fun"),
            parameters=("cond_fun", "body_fun", "init_val"))  # fmt: skip
    add(["jax.lax.associative_scan"], ABSTRACT, "all")
    # The frameworks' own transformations, from their plug-ins (model/jax/frameworks/): their
    # options by position as their JAX counterpart's (`hk.vmap(f, in_axes)`).
    for plugin in plugins():
        for spec in plugin.transforms:
            add(spec.names, spec.level, spec.style, spec.targets, spec.target_keywords,
                verb=spec.verb, parameters=_STYLE_PARAMETERS.get(spec.style, ()),
                stages=spec.stages)  # fmt: skip
    return table


# The positional parameters of the transformations that take options by position, by style:
# vmap(fun, in_axes, out_axes), grad(fun, argnums), shard_map(f, mesh, in_specs, out_specs)
# (jax.experimental.shard_map's order).
_STYLE_PARAMETERS = {
    "vmap": ("fun", "in_axes", "out_axes"),
    "grad": ("fun", "argnums"),
    "shard": ("f", "mesh", "in_specs", "out_specs"),
}


def _fields(t: Transform) -> tuple[object, ...]:
    return (t.qualname, t.level, t.style, t.targets, t.target_keywords, t.verb, t.stages)


TRANSFORMS = _table()


def option_args(transform: Transform, call: cst.Call) -> list[cst.Arg]:
    """The options `call` gives `transform`, as keyword arguments: vmap(f, in_axes, out_axes),
    grad(f, argnums) and shard_map(f, mesh, in_specs, out_specs) also take them by position
    (a lax loop's positional arguments are its operands, not options)."""
    options = [a for a in call.args if a.keyword is not None]
    if transform.style == "all" or len(transform.parameters) < 2:
        return options
    bound = bind(transform.signature, [(_keyword(a), a) for a in call.args])
    targets = {transform.parameters[i] for i in transform.targets if i < len(transform.parameters)}
    for name, arg in bound.arguments.items():
        if arg.keyword is None and name not in targets:
            options.append(arg.with_changes(keyword=cst.Name(name)))
    return options


def target_arguments(transform: Transform, args: Sequence[tuple[str | None, T]]) -> list[T]:
    """The traced functions among a call's arguments, (keyword or None, argument) in call
    order with star arguments marked as the call binder marks them: those at the
    transformation's target positions, then those given by one of its target keywords. A
    position after a `*xs` is not followed (where it lands is unknown)."""
    positional: list[T] = []
    for keyword, value in args:
        if keyword == STARRED:
            break
        if keyword is None:
            positional.append(value)
    found = [positional[i] for i in transform.targets if i < len(positional)]
    return found + [value for keyword, value in args if keyword in transform.target_keywords]


def _arguments(call: cst.Call) -> list[tuple[str | None, cst.BaseExpression]]:
    return [(_keyword(a), a.value) for a in call.args]


def _keyword(arg: cst.Arg) -> str | None:
    """An argument's keyword as the call binder takes it (star arguments marked)."""
    if arg.star == "*":
        return STARRED
    if arg.star == "**":
        return DOUBLE_STARRED
    return arg.keyword.value if arg.keyword is not None else None


LEAVES = frozenset(name.rsplit(".", 1)[1] for name in TRANSFORMS)


@dataclass
class Entry:
    """One application of a transformation to a function."""

    transform: Transform
    site: cst.CSTNode  # the decorator expression or the transformation call
    func: FuncNode
    params: dict[str, int]  # parameter name -> STATIC / PYTREE / UNKNOWN
    enclosing: FuncNode | None  # the function the application happens in, if any
    level: int = 0  # the transformation's own level, raised by enclosing transformations
    # "pkg/train.py:12" for an application in another file of the run (model/project/); `site`
    # is then the function itself, and no fix may edit it.
    origin: str | None = None
    # For a body traced by contract (frameworks/contracts.py): the class and why its users
    # call it under jit. `site` is then the function itself, and no fix may edit it.
    contract: tuple[str, str] | None = None
    # Parameters with a default that every call of the transformed function leaves out
    # (`g = jax.jit(f); g(x)`, every call of `g` seen): they keep their Python default.
    defaulted: frozenset[str] = frozenset()
    # Parameters with a default (UNKNOWN in `params`) that a call of a `@jax.jit` def in its
    # own file fills with a Python number or bool, with that call: jit traces what it is
    # given, so such a call makes them tracers (another file's calls: crossfile/records.py).
    given: dict[str, cst.Call] = field(default_factory=dict)
    # Parameters with a default (UNKNOWN in `params`) that a jit traces when a call passes
    # them: the body sees either the Python default or a tracer.
    traced_if_passed: frozenset[str] = frozenset()
    # Whether a transformation of the application stages the body (Transform.stages; an
    # enclosing one may stage it too). Contract roots and other files' applications: staged.
    staged: bool = True


# The calls of a transformed function, each as the keywords of its arguments in order (None
# for a positional one, `STARRED`/`DOUBLE_STARRED` for a star argument).
CallShapes = tuple[tuple[str | None, ...], ...]


@dataclass
class Foreign:
    """An application to something that is not a module-local function, such as an imported
    one (`jax.jit(model.loss)`): model/project/ records it for the file that defines it."""

    transform: Transform  # the outermost transformation: named in messages
    applied: Transform  # the one whose options decide the parameters (inner, when nested)
    options: list[cst.Arg]
    site: cst.CSTNode
    target: cst.BaseExpression
    path: list[cst.CSTNode]  # to the site
    enclosing: FuncNode | None
    level: int
    bound_positional: int = 0
    bound_names: frozenset[str] = frozenset()
    calls: CallShapes | None = None  # every call of the transformed function, when known


Link = tuple[cst.CSTNode, "Link"] | None  # a node's ancestors, innermost first


def materialise(link: Link) -> list[cst.CSTNode]:
    """The path (module first) that a linked list of ancestors stands for."""
    out: list[cst.CSTNode] = []
    while link is not None:
        out.append(link[0])
        link = link[1]
    out.reverse()
    return out


@dataclass
class Index:
    """The file's transformation applications by function, and each function's ancestors."""

    entries: dict[int, list[Entry]] = field(default_factory=dict)
    links: dict[int, Link] = field(default_factory=dict)  # function -> its ancestors
    _paths: dict[int, list[cst.CSTNode]] = field(default_factory=dict)

    def path(self, func: cst.CSTNode) -> list[cst.CSTNode] | None:
        """The path from the module to `func` (excluded), or None if it was not seen."""
        key = id(func)
        found = self._paths.get(key)
        if found is None:
            if key not in self.links:
                return None
            found = self._paths[key] = materialise(self.links[key])
        return found

    # Calls by plain name that may reach a module-local function: name -> [(call, path)].
    calls: dict[str, list[tuple[cst.Call, list[cst.CSTNode]]]] = field(default_factory=dict)
    # Calls of a name or dotted name whose head some import binds: they may reach a function
    # of another module (see model/project/). Paths stay linked lists: most are never needed.
    imported_calls: list[tuple[cst.Call, Link]] = field(default_factory=list)
    # Calls `x.m(...)` with arguments, of a method of a local name no import binds: `x` may
    # be an instance of another module's class (model/project/outbound.py).
    instance_calls: list[tuple[cst.Call, Link]] = field(default_factory=list)
    # Applications whose target is a name or attribute but no module-local function.
    foreign: list[Foreign] = field(default_factory=list)
    # The module-local functions a "pair" transformation makes into a pair (`hk.transform(f)`):
    # not entries; what they build runs where the pair's functions are called.
    paired: list[FuncNode] = field(default_factory=list)
    # Each such transformation: (the function, the function whose body makes the pair; None
    # at module level).
    pair_sites: list[tuple[FuncNode, FuncNode | None]] = field(default_factory=list)


def enclosing_function(path: Sequence[cst.CSTNode]) -> FuncNode | None:
    """The innermost function or lambda whose body contains the end of `path`."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda:
            if path[index + 1] is node.body:  # type: ignore[attr-defined]
                return node  # type: ignore[return-value]
        elif kind is cst.ClassDef:
            return None
    return None


class Discovery:
    def __init__(self, names: Names) -> None:
        self.names = names
        self.index = Index()
        module_scope = names.scope(names.module)
        self.spellings = set(LEAVES) | {"partial"}
        self.def_names: set[str] = set()
        for name, bindings in module_scope.bindings.items():
            if any(b.kind == "import" and b.qualname in TRANSFORMS for b in bindings):
                self.spellings.add(name)

    def run(self) -> Index:
        # Each stack entry carries its ancestors as a linked list (parent, link), so a path
        # is only materialised for the few nodes that need one.
        module = self.names.module
        stack: list[tuple[cst.CSTNode, Link]] = [(module, None)]
        calls: list[tuple[cst.Call, Link]] = []
        dotted_calls: list[tuple[cst.Call, Link]] = []
        imported: set[str] = set()
        paths = self.index.links
        while stack:
            node, link = stack.pop()
            kind = type(node)
            if kind is cst.If:
                # `if JAX_MODE:` with `JAX_MODE = False`: code that never runs applies nothing.
                truth = static_truth(self.names, node.test)  # type: ignore[attr-defined]
                if truth is not None:
                    live = node.body if truth else node.orelse  # type: ignore[attr-defined]
                    if live is not None:
                        stack.append((live, (node, link)))
                    continue
            if kind is cst.FunctionDef:
                paths[id(node)] = link
                self.def_names.add(node.name.value)  # type: ignore[attr-defined]
                if node.decorators:  # type: ignore[attr-defined]
                    self._decorated(node, materialise(link))  # type: ignore[arg-type]
            elif kind is cst.Lambda or kind is cst.ClassDef:
                paths[id(node)] = link
            elif kind is cst.Call:
                func = node.func  # type: ignore[attr-defined]
                leaf = leaf_name(func)
                if leaf in self.spellings:
                    self._call(node, [*materialise(link), node])  # type: ignore[arg-type]
                elif type(func) is cst.Name:
                    calls.append((node, link))  # type: ignore[arg-type]
                elif type(func) is cst.Attribute:
                    dotted_calls.append((node, link))  # type: ignore[arg-type]
                elif type(func) is cst.Call and leaf_name(func.func) in self.spellings:  # type: ignore[attr-defined]
                    self._factory_call(node, [*materialise(link), node])  # type: ignore[arg-type]
            elif kind is cst.Import or kind is cst.ImportFrom:
                imported.update(_import_names(node))
            here = (node, link)
            for child in reversed(iter_children(node)):
                if type(child) is not cst.Name:  # a bare name applies and binds nothing here
                    stack.append((child, here))
        for call, link in calls:
            name = call.func.value  # type: ignore[attr-defined]
            if name in self.def_names:
                self.index.calls.setdefault(name, []).append((call, [*materialise(link), call]))
        if imported:
            for call, link in (*calls, *dotted_calls):
                if _head(call.func) in imported:
                    self.index.imported_calls.append((call, link))
            for call, link in dotted_calls:
                receiver = call.func.value  # type: ignore[attr-defined]
                if call.args and type(receiver) is cst.Name and receiver.value not in imported:
                    self.index.instance_calls.append((call, link))
        return self.index

    # ---- decorators -------------------------------------------------------------------
    def _decorated(self, func: cst.FunctionDef, path: list[cst.CSTNode]) -> None:
        decorators = func.decorators
        found = []
        for position, decorator in enumerate(decorators):
            where = [*path, func, decorator]
            resolved = self._transform_of(decorator.decorator, where)
            if resolved is not None:
                found.append((position, resolved, decorator.decorator))
        if not found:
            return
        transforms_at = {position for position, _, _ in found}
        enclosing = enclosing_function([*path, func])
        for position, (transform, options), site in found:
            # Decorators below this one that are not transformations may change the signature.
            inner_unknown = any(
                i not in transforms_at for i in range(position + 1, len(decorators))
            )
            params = application_params(transform, options, func, inner_unknown, 0, set())
            entry = Entry(transform, site, func, params, enclosing, staged=transform.stages)
            if transform.style == "jit" and len(decorators) == 1:
                entry.given = self._given_numbers(func, path, transform, options, params)
                entry.traced_if_passed = traced_if_passed(transform, options, func, params)
            self._add(entry)

    def _given_numbers(
        self,
        func: cst.FunctionDef,
        path: list[cst.CSTNode],
        transform: Transform,
        options: Sequence[cst.Arg],
        params: dict[str, int],
    ) -> dict[str, cst.Call]:
        """The parameters `func`'s only decorator, a jit, leaves UNKNOWN for their default
        that a call of `func` in the scope binding it fills with a literal number or bool
        (`sample(x, temperature=0.5)`), each with the first such call."""
        scope = self.names.scope_chain(path)[0]
        if type(scope) not in (cst.FunctionDef, cst.Module):
            return {}  # a method: its calls go through instances
        bindings = self.names.lookup(func.name.value, path)
        if bindings is None or len(bindings) != 1 or bindings[0].node is not func:
            return {}
        body = scope.body if type(scope) is cst.FunctionDef else scope  # type: ignore[attr-defined]
        calls = calls_of_name(body, func.name.value, func.name)
        if not calls:
            return {}
        # What each parameter would be if passed: only a traced one (PYTREE) counts.
        passed = application_params(
            transform, options, func, False, 0, set(), defaults_unknown=False
        )
        signature = Signature.of(func)
        defaults = {name for name, _ in signature.defaults}
        given: dict[str, cst.Call] = {}
        for call in calls:
            for name, expr in bind_call(signature, call).arguments.items():
                if (
                    name in defaults
                    and name not in given
                    and params.get(name) == UNKNOWN
                    and passed.get(name) == PYTREE
                    and python_number(expr)
                ):
                    given[name] = call
        return given

    # ---- calls ------------------------------------------------------------------------
    def _call(self, call: cst.Call, path: list[cst.CSTNode]) -> None:
        transform = self._resolve(call.func, path)
        if transform is not None:
            self._apply(transform, [], call, path)

    def _factory_call(self, call: cst.Call, path: list[cst.CSTNode]) -> None:
        """`partial(jax.jit, static_argnums=1)(f)` or `jax.jit(static_argnames=...)(f)`."""
        resolved = self._transform_of(call.func, path)
        if resolved is not None:
            self._apply(resolved[0], resolved[1], call, path)

    def _apply(
        self,
        transform: Transform,
        bound: list[cst.Arg],
        call: cst.Call,
        path: list[cst.CSTNode],
    ) -> None:
        """`call` applies `transform` (with the options `bound` by a factory) to its targets."""
        targets = target_arguments(transform, _arguments(call))
        options = [*bound, *option_args(transform, call)]
        enclosing = enclosing_function(path)
        for target in targets:
            if type(target) in (cst.List, cst.Tuple):  # lax.switch branches
                elements = [e.value for e in target.elements]  # type: ignore[attr-defined]
            else:
                elements = [target]
            for element in elements:
                self._target(transform, options, call, element, path, enclosing)

    def _target(
        self,
        transform: Transform,
        options: list[cst.Arg],
        site: cst.CSTNode,
        target: cst.BaseExpression,
        path: list[cst.CSTNode],
        enclosing: FuncNode | None,
    ) -> None:
        bound_positional = 0
        bound_names: set[str] = set()
        # `partial(f, a, k=v)`: the bound arguments are Python values fixed at wrap time.
        if type(target) is cst.Call and leaf_name(target.func) in self.spellings:  # type: ignore[attr-defined]
            if self.names.resolves_to(target.func, path, PARTIAL):  # type: ignore[attr-defined]
                args = target.args  # type: ignore[attr-defined]
                if not args or args[0].keyword is not None or args[0].star:
                    return
                bound_positional = sum(1 for a in args[1:] if a.keyword is None)
                bound_names = {a.keyword.value for a in args[1:] if a.keyword is not None}
                target = args[0].value
            else:
                # A transformation of a transformation, e.g. jax.jit(jax.grad(f)): the inner
                # call is an entry of its own; the outer one raises its level, keeping the
                # inner one's view of the parameters (the outer sees a different signature).
                inner = self._resolve(target.func, path)  # type: ignore[attr-defined]
                if inner is not None:
                    inner_args = target.args  # type: ignore[attr-defined]
                    inner_options = [a for a in inner_args if a.keyword is not None]
                    level = max(transform.level, inner.level)
                    for expr in self._targets_of(target, inner):
                        func = self._function(expr, path)
                        if func is None:
                            self._foreign(
                                Foreign(transform, inner, inner_options, site, expr, path,
                                        enclosing, level, calls=self._calls_of(transform, path))
                            )  # fmt: skip
                        elif not isinstance(func, cst.ClassDef):
                            params = application_params(inner, inner_options, func, False, 0, set())
                            staged = transform.stages or inner.stages
                            entry = Entry(
                                transform, site, func, params, enclosing, level, staged=staged
                            )
                            entry.defaulted = defaulted(func, self._calls_of(transform, path))
                            self._add(entry)
                return
        func = self._function(target, path)
        if transform.style == "pair":
            # `hk.transform(f)` traces nothing: `f` runs where `apply`/`init` is called.
            if func is not None and type(func) is not cst.ClassDef:
                self.index.paired.append(func)
                self.index.pair_sites.append((func, enclosing))
            return
        if func is None:
            self._foreign(
                Foreign(transform, transform, list(options), site, target, path, enclosing,
                        transform.level, bound_positional, frozenset(bound_names),
                        self._calls_of(transform, path))
            )  # fmt: skip
            return
        if type(func) is cst.ClassDef:
            if transform.style != "lifted":
                return
            method = _method(func, "__call__")
            if method is None:
                return
            func = method
        params = application_params(transform, options, func, False, bound_positional, bound_names)
        entry = Entry(transform, site, func, params, enclosing, staged=transform.stages)
        if transform.style == "jit":
            entry.traced_if_passed = traced_if_passed(
                transform, options, func, params, bound_positional, bound_names
            )
        calls = self._calls_of(transform, path)
        entry.defaulted = defaulted(func, calls, bound_positional, bound_names)
        self._add(entry)

    def _calls_of(self, transform: Transform, path: list[cst.CSTNode]) -> CallShapes | None:
        """Every call of the function that the transformation call ending `path` makes:
        `jax.jit(f)(x)`, or `g = jax.jit(f)` with `g` bound once and only ever called in its
        scope. None when it may be called elsewhere (or it is not a function it returns)."""
        if transform.style in _NOT_RETURNING or transform.abstract_only or len(path) < 2:
            return None
        site, parent = path[-1], path[-2]
        if type(parent) is cst.Call and parent.func is site:  # type: ignore[attr-defined]
            calls: list[cst.Call] | None = [parent]  # type: ignore[list-item]
        elif (
            type(parent) is cst.Assign
            and len(parent.targets) == 1  # type: ignore[attr-defined]
            and type(parent.targets[0].target) is cst.Name  # type: ignore[attr-defined]
        ):
            target: cst.Name = parent.targets[0].target  # type: ignore[attr-defined]
            scope = self.names.scope_chain(path)[0]
            bindings = self.names.lookup(target.value, path)
            if type(scope) not in (cst.FunctionDef, cst.Module) or bindings is None:
                return None
            if len(bindings) != 1 or bindings[0].node is not site:
                return None
            body = scope.body if type(scope) is cst.FunctionDef else scope  # type: ignore[attr-defined]
            calls = calls_of_name(body, target.value, target)
        elif type(parent) is cst.Return and parent.value is site:  # type: ignore[attr-defined]
            calls = self._calls_of_maker(path)
        else:
            return None
        if calls is None:
            return None
        return tuple(tuple(_keyword(a) for a in call.args) for call in calls)

    def _calls_of_maker(self, path: list[cst.CSTNode]) -> list[cst.Call] | None:
        """`def make(...): return jax.jit(f)`, a `def` bound once whose every use is
        `make(...)(x)`: the calls `(x)`, which are all the calls the returned function gets."""
        maker = self.names.scope_chain(path)[0]
        if type(maker) is not cst.FunctionDef or maker.decorators:
            return None
        outer = path[: path.index(maker) + 1]
        if self.names.only_def(maker.name.value, outer) is not maker:
            return None
        scope = self.names.scope_chain(outer)[0]
        if type(scope) not in (cst.FunctionDef, cst.Module):
            return None
        body = scope.body if type(scope) is cst.FunctionDef else scope  # type: ignore[attr-defined]
        return calls_of_result(body, maker.name.value, maker.name)

    def _targets_of(self, call: cst.CSTNode, transform: Transform) -> list[cst.BaseExpression]:
        return target_arguments(transform, _arguments(call))  # type: ignore[arg-type]

    def _foreign(self, application: Foreign) -> None:
        if type(application.target) in (cst.Name, cst.Attribute):
            self.index.foreign.append(application)

    def _function(
        self, expr: cst.BaseExpression, path: list[cst.CSTNode]
    ) -> FuncNode | cst.ClassDef | None:
        if type(expr) is cst.Lambda:
            return expr  # type: ignore[return-value]
        if type(expr) is cst.Name:
            bindings = self.names.lookup(expr.value, path)  # type: ignore[attr-defined]
            if bindings and len(bindings) == 1 and bindings[0].kind in ("def", "class"):
                return bindings[0].node  # type: ignore[return-value]
            if bindings and len(bindings) == 1 and type(bindings[0].node) is cst.Lambda:
                return bindings[0].node  # type: ignore[return-value]  # `f = lambda ...`
        return None

    # ---- resolution -------------------------------------------------------------------
    def _resolve(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Transform | None:
        if leaf_name(expr) not in self.spellings:
            return None
        candidates = self.names.qualified_names(expr, path)
        if not candidates:
            return None
        found = {TRANSFORMS.get(c) for c in candidates}
        if None in found or len(found) != 1:
            return None
        return found.pop()

    def _transform_of(
        self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> tuple[Transform, list[cst.Arg]] | None:
        """A decorator: `T`, `T(**options)` or `partial(T, **options)`."""
        transform = self._resolve(expr, path)
        if transform is not None:
            return transform, []
        if type(expr) is not cst.Call:
            return None
        args = expr.args  # type: ignore[attr-defined]
        positional = [a for a in args if a.keyword is None]
        options = [a for a in args if a.keyword is not None]
        transform = self._resolve(expr.func, path)  # type: ignore[attr-defined]
        if transform is not None and not positional:
            return transform, options
        if (
            len(positional) == 1
            and leaf_name(expr.func) in self.spellings  # type: ignore[attr-defined]
            and self.names.resolves_to(expr.func, path, PARTIAL)  # type: ignore[attr-defined]
        ):
            transform = self._resolve(positional[0].value, path)
            if transform is not None:
                return transform, options
        return None

    def resolve(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Transform | None:
        """The transformation `expr` (which ends `path`) names, if it names one."""
        return self._resolve(expr, path)

    def applications(self, entry: Entry) -> list[Application] | None:
        """What `entry`'s site applies to its function, outermost first: every decorator of a
        decorated function, or the nested calls of an application
        (`jax.jit(jax.pmap(f, axis_name="i"))`); None when anything else wraps it."""
        func, site = entry.func, entry.site
        if type(func) is cst.FunctionDef and any(d.decorator is site for d in func.decorators):
            where = [*(self.index.path(func) or [self.names.module]), func]
            out = []
            for decorator in func.decorators:
                resolved = self._transform_of(decorator.decorator, [*where, decorator])
                if resolved is None:
                    return None
                out.append(Application(resolved[0], tuple(resolved[1]), decorator.decorator))
            return out
        enclosing = entry.enclosing
        path: list[cst.CSTNode] = [self.names.module]
        if enclosing is not None:
            path = [*(self.index.path(enclosing) or path), enclosing, enclosing.body]
        return self._nested(site, func, path)

    def _nested(
        self, site: cst.CSTNode, func: FuncNode, path: list[cst.CSTNode]
    ) -> list[Application] | None:
        out: list[Application] = []
        node = site
        for _ in range(8):
            if type(node) is not cst.Call:
                return None
            call: cst.Call = node  # type: ignore[assignment]
            args = list(call.args)
            transform = self._resolve(call.func, [*path, call])
            if transform is None and type(call.func) is cst.Call:
                resolved = self._transform_of(call.func, [*path, call])  # partial(jax.jit, ...)(f)
                if resolved is not None:
                    transform, args = resolved[0], [*resolved[1], *args]
            if transform is None:
                return None
            out.append(Application(transform, tuple(args), call))
            targets = target_arguments(transform, _arguments(call))
            flat: list[cst.BaseExpression] = []
            for target in targets:
                if type(target) in (cst.List, cst.Tuple):  # lax.switch branches
                    flat.extend(e.value for e in target.elements)  # type: ignore[attr-defined]
                else:
                    flat.append(target)
            for target in flat:
                if (
                    type(target) is cst.Call
                    and target.args  # type: ignore[attr-defined]
                    and self.names.resolves_to(target.func, [*path, target], PARTIAL)  # type: ignore[attr-defined]
                ):
                    target = target.args[0].value  # type: ignore[attr-defined]
                if target is func or self._function(target, path) is func:
                    return out
            if len(flat) != 1:
                return None
            node = flat[0]  # a transformation of a transformation
        return None

    def _add(self, entry: Entry) -> None:
        if not entry.level:
            entry.level = entry.transform.level
        self.index.entries.setdefault(id(entry.func), []).append(entry)


def static_truth(
    names: Names,
    test: cst.BaseExpression,
    local: Callable[[str], Value | None] | None = None,
    leaf: Callable[[cst.BaseExpression], bool | None] | None = None,
) -> bool | None:
    """The truth of a test on module-level constants bound once to True/False, such as
    `if JAX_MODE:` in code generated for several backends, or on a local name whose value is
    a known literal (`local` gives the analyser's current value); None when unknown. `leaf`
    answers first for a name, attribute, call or comparison that the caller's context
    decides (a flag that is False wherever the code is staged, `x is None` of a parameter
    that holds an array)."""
    kind = type(test)
    if leaf is not None and kind in (cst.Name, cst.Attribute, cst.Call, cst.Comparison):
        found = leaf(test)
        if found is not None:
            return found
    if kind is cst.Name and local is not None:
        value = local(test.value)  # type: ignore[attr-defined]
        if value is not None:
            return literal_truth(value)
    if kind is cst.Name:
        bindings = names.scope(names.module).bindings.get(test.value)  # type: ignore[attr-defined]
        if bindings and len(bindings) == 1 and bindings[0].kind == "assign":
            value = bindings[0].node
            if type(value) is cst.Name and value.value in ("True", "False"):  # type: ignore[attr-defined]
                return value.value == "True"  # type: ignore[attr-defined]
        return None
    if kind is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
        inner = static_truth(names, test.expression, local, leaf)  # type: ignore[attr-defined]
        return None if inner is None else not inner
    if kind is cst.BooleanOperation:
        left = static_truth(names, test.left, local, leaf)  # type: ignore[attr-defined]
        is_and = type(test.operator) is cst.And  # type: ignore[attr-defined]
        if left is not None and left != is_and:
            return left  # `False and ...` / `True or ...`
        if leaf is not None:
            # `debug and FLAG` with the flag False: never true, whatever `debug` is.
            right = static_truth(names, test.right, local, leaf)  # type: ignore[attr-defined]
            if right is not None and right != is_and:
                return right
    if kind is cst.Comparison and local is not None:
        return _none_test_truth(test, local)  # type: ignore[arg-type]
    return None


def none_test(test: cst.Comparison) -> tuple[str, bool] | None:
    """`x is None` -> ("x", True), `x is not None` -> ("x", False); None for other tests."""
    if len(test.comparisons) != 1 or type(test.left) is not cst.Name:
        return None
    (target,) = test.comparisons
    operator = type(target.operator)
    comparator = target.comparator
    if operator not in (cst.Is, cst.IsNot) or type(comparator) is not cst.Name:
        return None
    if comparator.value != "None":  # type: ignore[attr-defined]
        return None
    return test.left.value, operator is cst.Is  # type: ignore[attr-defined]


def _none_test_truth(test: cst.Comparison, local: Callable[[str], Value | None]) -> bool | None:
    """`x is None` / `x is not None` on a local whose value says (`is_none`): a size
    passed as `x.shape[0]` is never None, so `if size is None:` does not run for that call."""
    tested = none_test(test)
    if tested is None:
        return None
    name, is_none_test = tested
    value = local(name)
    found = is_none(value) if value is not None else None
    if found is None:
        return None
    return found if is_none_test else not found


def _head(expr: cst.BaseExpression) -> str:
    """`a` for `a.b.c`; "" when the dotted chain does not start with a name."""
    while type(expr) is cst.Attribute:
        expr = expr.value  # type: ignore[attr-defined]
    return expr.value if type(expr) is cst.Name else ""  # type: ignore[attr-defined]


def _import_names(node: cst.CSTNode) -> list[str]:
    names = node.names  # type: ignore[attr-defined]
    if type(names) is cst.ImportStar:
        return []
    out = []
    for alias in names:
        bound = alias.asname.name if alias.asname is not None else alias.name
        head = _head(bound)
        if head:
            out.append(head)
    return out


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    body = cls.body
    if type(body) is not cst.IndentedBlock:
        return None
    for statement in body.body:  # type: ignore[attr-defined]
        if type(statement) is cst.FunctionDef and statement.name.value == name:
            return statement
    return None


def param_names(func: FuncNode) -> list[str]:
    """Every parameter name of `func`, in order, with *args and **kwargs."""
    p = func.params
    names = [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
    for star in (p.star_arg, p.star_kwarg):
        if type(star) is cst.Param:
            names.append(star.name.value)  # type: ignore[attr-defined]
    return names


def _option(options: Sequence[cst.Arg], name: str) -> cst.Arg | None:
    for arg in options:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def _int_positions(expr: cst.BaseExpression) -> set[int] | None:
    if type(expr) is cst.Integer:
        return {int(expr.value, 0)}  # type: ignore[attr-defined]
    if type(expr) in (cst.Tuple, cst.List):
        out: set[int] = set()
        for element in expr.elements:  # type: ignore[attr-defined]
            if type(element.value) is not cst.Integer:
                return None
            out.add(int(element.value.value, 0))
        return out
    return None


def _axes(expr: cst.BaseExpression, count: int) -> list[bool] | None:
    """vmap's in_axes: for each positional parameter, whether it is mapped (traced)."""
    if type(expr) is cst.Integer or (
        type(expr) is cst.UnaryOperation and type(expr.expression) is cst.Integer  # type: ignore[attr-defined]
    ):
        return [True] * count
    if type(expr) is cst.Name and expr.value == "None":  # type: ignore[attr-defined]
        return [False] * count
    if type(expr) in (cst.Tuple, cst.List):
        out = []
        for element in expr.elements:  # type: ignore[attr-defined]
            value = element.value
            if type(value) is cst.Name and value.value == "None":
                out.append(False)
            elif type(value) is cst.Integer or type(value) is cst.UnaryOperation:
                out.append(True)
            else:
                return None
        return out
    return None


def _in_specs(expr: cst.BaseExpression, count: int) -> list[bool] | None:
    """shard_map's in_specs: for each positional parameter, whether it arrives as a traced
    shard. A `None` entry passes the caller's value through unchanged (a Python int stays
    one [observed on jax 0.10.2]); None when the specs are not written out."""
    if type(expr) is cst.Call:
        return [True] * count  # one PartitionSpec for every argument
    if type(expr) is cst.Name and expr.value == "None":  # type: ignore[attr-defined]
        return [False] * count
    if type(expr) in (cst.Tuple, cst.List):
        out = []
        for element in expr.elements:  # type: ignore[attr-defined]
            value = element.value
            if type(element) is cst.StarredElement:
                return None
            out.append(not (type(value) is cst.Name and value.value == "None"))
        return out
    return None


# An argument whose in_specs entry is None: jax's facts say whether it stays the caller's
# value (a Python int stays one when shard_map is called directly, but is a tracer under an
# outer jit): traced only when it is a tracer both ways, else unknown.
_NONE_SPEC_ARGUMENT = (
    PYTREE if set(shard_map_none_spec_argument().values()) == {"tracer"} else UNKNOWN
)


# The options `application_params` reads: all an application in another file hands over.
PARAM_OPTIONS = frozenset(
    {"static_argnums", "static_argnames", "in_axes", "excluded", "static_broadcasted_argnums",
     "argnums", "in_specs"}
)  # fmt: skip


def _static_positions(
    options: Sequence[cst.Arg], keyword: str, positional: list[str]
) -> list[str] | None:
    """The positional parameters an argnums-style option (`static_argnums=(1,)`) names: none
    when it is absent, None when it is not a literal."""
    option = _option(options, keyword)
    if option is None:
        return []
    nums = _int_positions(option.value)
    if nums is None:
        return None
    return [name for index, name in enumerate(positional) if index in nums]


def application_params(
    transform: Transform,
    options: Sequence[cst.Arg],
    func: FuncNode,
    signature_unknown: bool,
    bound_positional: int,
    bound_names: set[str],
    defaults_unknown: bool = True,
) -> dict[str, int]:
    """For one application: each parameter's kind (STATIC, PYTREE or UNKNOWN). Parameters
    with a default are UNKNOWN unless `defaults_unknown` is False (a call site, which passes
    them or not)."""
    names = param_names(func)
    p = func.params
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    with_default = {
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.default is not None
    }
    out = {name: PYTREE for name in names}
    style = transform.style
    if signature_unknown or style in ("filter", "pair"):
        return {name: UNKNOWN for name in names}
    if style == "jit":
        static = spec_from_args(options).effective(Signature.of(func))
        if static is None:
            return {name: UNKNOWN for name in names}
        nums, static_names = static
        for index, name in enumerate(positional):
            if index in nums:
                out[name] = STATIC
        for name in static_names:
            if name in out:
                out[name] = STATIC
    elif style == "vmap":
        axes_arg = _option(options, "in_axes")
        if _option(options, "excluded") is not None:
            return {name: UNKNOWN for name in names}
        if axes_arg is not None:
            mapped = _axes(axes_arg.value, len(positional))
            if mapped is None:
                return {name: UNKNOWN for name in names}
            for index, name in enumerate(positional):
                if index >= len(mapped) or not mapped[index]:
                    out[name] = UNKNOWN
    elif style == "pmap":
        static = _static_positions(options, "static_broadcasted_argnums", positional)
        if static is None:
            return {name: UNKNOWN for name in names}
        out.update(dict.fromkeys(static, STATIC))
    elif style == "grad":
        argnums = _option(options, "argnums")
        diff = {0} if argnums is None else _int_positions(argnums.value)
        if diff is None:
            return {name: UNKNOWN for name in names}
        for index, name in enumerate(names):
            if index not in diff or index >= len(positional):
                out[name] = UNKNOWN
    elif style == "ckpt":
        static_names = _option(options, "static_argnames")
        if static_names is not None:
            literal = spec_from_args([static_names]).argnames
            if literal is None:
                return {name: UNKNOWN for name in names}
            out.update({name: STATIC for name in literal if name in out})
        static = _static_positions(options, "static_argnums", positional)
        if static is None:
            return {name: UNKNOWN for name in names}
        out.update(dict.fromkeys(static, STATIC))
    elif style == "shard":
        specs = _option(options, "in_specs")
        if specs is not None:
            sharded = _in_specs(specs.value, len(positional))
            if sharded is None:
                return {name: UNKNOWN for name in names}
            for index, name in enumerate(positional):
                if index >= len(sharded) or not sharded[index]:
                    out[name] = _NONE_SPEC_ARGUMENT
    elif style == "lifted":
        if _option(options, "static_argnums") is not None or _option(options, "in_axes"):
            return {name: UNKNOWN for name in names}
        if names:
            out[names[0]] = UNKNOWN  # the module (or `self`)
    # Arguments bound by partial, and parameters that may be left at their defaults, hold
    # Python values the caller chose: nothing says they are traced.
    for name in positional[:bound_positional]:
        out[name] = UNKNOWN
    defaults = with_default if defaults_unknown else set()
    if style == "jit":
        # `t: Optional[float] = None`: the annotation says a float may be passed, and jax.jit
        # traces it when it is. (`n: int = 0` is most often left at its default.)
        defaults = defaults - optional_scalar_params(func)
    for name in bound_names | defaults:
        if name in out and out[name] == PYTREE:
            out[name] = UNKNOWN
    return out


def traced_if_passed(
    transform: Transform,
    options: Sequence[cst.Arg],
    func: FuncNode,
    params: dict[str, int],
    bound_positional: int = 0,
    bound_names: set[str] | frozenset[str] = frozenset(),
) -> frozenset[str]:
    """The parameters an application leaves UNKNOWN for their default that it would trace
    if a call passed them (not bound by a partial, not static)."""
    passed = application_params(
        transform, options, func, False, bound_positional, set(bound_names),
        defaults_unknown=False,
    )  # fmt: skip
    return frozenset(
        name for name, kind in params.items() if kind == UNKNOWN and passed.get(name) == PYTREE
    )


def scalar_params(func: FuncNode) -> set[str]:
    """Parameters annotated as a Python scalar type (`flag: bool`, `n: int`), or an optional
    one (`t: Optional[float] = None`): when given, jax.jit makes it one array."""
    p = func.params
    return {
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is not None and _scalar_annotation(x.annotation.annotation)
    }


_SCALAR_TYPES = ("bool", "int", "float", "complex")


def _scalar_annotation(annotation: cst.BaseExpression) -> bool:
    kind = type(annotation)
    if kind is cst.Name:
        return annotation.value in _SCALAR_TYPES  # type: ignore[attr-defined]
    if kind is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:  # type: ignore[attr-defined]
        sides = (annotation.left, annotation.right)  # type: ignore[attr-defined]
        return any(_is_none(s) for s in sides) and any(_scalar_annotation(s) for s in sides)
    if kind is cst.Subscript and leaf_name(annotation.value) == "Optional":  # type: ignore[attr-defined]
        elements = annotation.slice  # type: ignore[attr-defined]
        return (
            len(elements) == 1
            and type(elements[0].slice) is cst.Index
            and _scalar_annotation(elements[0].slice.value)
        )
    return False


def _is_none(expr: cst.BaseExpression | None) -> bool:
    return type(expr) is cst.Name and expr.value == "None"  # type: ignore[attr-defined]


# Transformations whose result is not the transformed function: lax control flow runs its
# functions at once, a lifted one makes a class, a pair transformation a pair of functions.
_NOT_RETURNING = frozenset({"all", "lifted", "pair"})


def defaulted(
    func: FuncNode,
    calls: CallShapes | None,
    bound_positional: int = 0,
    bound_names: set[str] | frozenset[str] = frozenset(),
) -> frozenset[str]:
    """The parameters of `func` with a default that every one of `calls` (of the function
    a transformation made of it, after a partial binding `bound_positional` arguments and
    the keywords `bound_names`) leaves out; none when the calls are not all known."""
    if calls is None:
        return frozenset()
    signature = Signature.of(func).after(bound_positional)
    return never_passed(signature, calls) - set(bound_names)


def python_number(expr: cst.BaseExpression) -> bool:
    """A literal int, float or complex (signed or not), `True` or `False`."""
    if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):  # type: ignore[attr-defined]
        expr = expr.expression  # type: ignore[attr-defined]
    if type(expr) in (cst.Integer, cst.Float, cst.Imaginary):
        return True
    return type(expr) is cst.Name and expr.value in ("True", "False")  # type: ignore[attr-defined]


def plain_scalar_params(func: FuncNode) -> dict[str, str]:
    """Parameters annotated with a bare Python scalar type (`n: int`, `mode: str`), not
    optional and without a None default: the type's name. Passed as a Python value (a static
    argument), such a parameter is taken at its word: that type, never None."""
    p = func.params
    found: dict[str, str] = {}
    for x in (*p.posonly_params, *p.params, *p.kwonly_params):
        annotation = x.annotation.annotation if x.annotation is not None else None
        if type(annotation) is not cst.Name or annotation.value not in SCALAR_TYPES:  # type: ignore[attr-defined]
            continue
        if x.default is not None and _is_none(x.default):
            continue
        found[x.name.value] = annotation.value  # type: ignore[attr-defined]
    return found


def optional_scalar_params(func: FuncNode) -> set[str]:
    """Parameters annotated as an optional Python scalar whose default is None."""
    p = func.params
    return {
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is not None
        and _is_none(x.default)  # type: ignore[arg-type]
        and type(x.annotation.annotation) is not cst.Name
        and _scalar_annotation(x.annotation.annotation)
    }


# ---- axis names ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Application:
    """One transformation applied around a function on the way to it: its arguments as
    written (`args` keeps positional options at their positions, the function at its own)."""

    transform: Transform
    args: tuple[cst.Arg, ...]
    site: cst.CSTNode  # the decorator expression or the call, for messages


def axis_names_bound(app: Application) -> frozenset[str] | None:
    """The axis names `app` binds for the collectives inside it (empty: none); None when it
    may bind names that cannot be read here: a mesh's axes, an axis environment, a name
    that is not a literal, or a transformation jax's facts do not describe."""
    facts = axis_transform(app.transform.qualname)
    if facts is None:
        return None
    if any(a.star for a in app.args):
        return None
    arguments = bind(facts.signature, [(_keyword(a), a.value) for a in app.args]).arguments
    bound: set[str] = set()
    for name, _position in facts.parameters:
        if name == "mesh":
            return None  # shard_map binds its mesh's axes (given, or the context's)
        value = arguments.get(name)
        if value is None or _is_none(value):
            continue
        names = literal_axis_names(value)
        if name != "axis_name" or not facts.binds_axis_name or names is None:
            return None
        bound.update(names)
    return frozenset(bound)


def literal_axis_names(expr: cst.BaseExpression) -> frozenset[str] | None:
    """`"batch"` or `("x", "y")`: the axis names written; None for anything else."""
    if type(expr) is cst.SimpleString:
        value = expr.evaluated_value  # type: ignore[attr-defined]
        return frozenset({value}) if isinstance(value, str) else None
    if type(expr) in (cst.Tuple, cst.List):
        out: set[str] = set()
        for element in expr.elements:  # type: ignore[attr-defined]
            if type(element) is not cst.Element or type(element.value) is not cst.SimpleString:
                return None
            value = element.value.evaluated_value
            if not isinstance(value, str):
                return None
            out.add(value)
        return frozenset(out)
    return None
