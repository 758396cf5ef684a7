"""What transformations do when the interpreter meets them (a mixin of `Calls`, calls.py):
`jax.jit(f, ...)` and its kin make a `Transformed` value; calling one runs its target at the
transformation's level, the static spec deciding which arguments arrive as tracers (and
which static ones JAX must hash); lax loops and branches run their functions with tracers;
`tree_map` runs its function on leaves; `functools.partial` binds arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from jitlint.model.domain.hashing import unhashable
from jitlint.model.domain.values import (
    PYTREE,
    STATIC,
    UNKNOWN,
    Array,
    BoundMethod,
    ClassRef,
    Foreign,
    FunctionRef,
    Object,
    PartialRef,
    Ref,
    Seq,
    Transformed,
    U,
    Value,
    join_all,
)
from jitlint.model.jax.analyzer import Analyzer, Args, Context
from jitlint.model.jax.crossfile.returned import ForeignFunction
from jitlint.model.jax.frameworks import flattened, haiku, linen
from jitlint.model.jax.frameworks.pytrees import not_a_pytree
from jitlint.model.jax.jit import spec_from_args
from jitlint.model.jax.library import (
    arrays,
    aux,
    filtered,
    rewhy,
    tracerize,
    tree_leaf,
    tree_like,
)
from jitlint.model.jax.static_args.hashable import StaticEvent
from jitlint.model.jax.transforms import (
    LAX_MIRRORS,
    Entry,
    Transform,
    application_params,
    option_args,
    param_names,
    target_arguments,
)
from jitlint.python.binding import PARTIAL_SIGNATURE, Signature, bind


class Transformations:
    """Transformation semantics; needs `Calls.invoke`, `.call` and `.tracing`."""

    def _transform(
        self,
        context: Context,
        an: Analyzer,
        call: cst.Call,
        transform: Transform,
        args: Args,
        star: bool,
    ) -> Value:
        """A call of a transformation: `jax.jit(f, ...)` makes a transformed function; a lax
        loop or branch runs its function arguments."""
        options = option_args(transform, call)
        why = ("transform", transform.qualname, call)
        if (
            transform.qualname.startswith(LAX_MIRRORS)
            and transform.style == "all"
            and transform.qualname.rsplit(".", 1)[1] in _LAX_FLOW
        ):
            return self._control_flow(context, an, call, transform, args, star)
        if star:
            return Transformed(transform, U, options, why)
        targets = target_arguments(transform, args)
        if not targets:
            return Transformed(transform, None, options, why)  # type: ignore[arg-type]
        target = targets[0]
        if isinstance(target, Foreign) and target.role == "member":
            # `jax.jit(net.apply)` with `net` an instance of another module's class: the
            # method is traced there, `self` bound.
            level = max(context.level, transform.level)
            params = [a for a in options if a.keyword is not None]
            self._record(context, call, target.path, [(None, U)], False, params, level)
        if (
            isinstance(target, PartialRef)
            and isinstance(target.target, Foreign)
            and target.target.role == "name"
            and not target.star
        ):
            # `jax.jit(p)` with `p` a partial of another module's function (made here, or
            # returned by a call, crossfile/returned.py): traced there, less what `p` binds.
            level = max(context.level, transform.level)
            params = [a for a in options if a.keyword is not None]
            bound = (len(target.args), tuple(sorted(target.keywords)))
            self._record(context, call, target.target.path, [], False, params, level, bound)
        if transform.style == "jit" and isinstance(target, haiku.PairMethod):
            # `jax.jit(net.apply)`: the project compiles the pair's function. Where the
            # compiled function is called, the call's arguments go in; it runs here too, with
            # arguments unknown, for a jitted apply kept or handed on (`self.fn = jax.jit(...)`).
            function = target.pair.target
            if isinstance(function, FunctionRef):
                given = [(name, U) for name in param_names(function.func)]
                level = max(context.level, transform.level)
                label = f"{transform.qualname}(....{target.method})"
                self._call_at(context, call, function, given, level, label, stages=True)
        if transform.style == "jit" and isinstance(targets[0], Object):
            # jit keys its cache on the callable: an instance must be hashable.
            reason = unhashable(targets[0])
            if reason is not None:
                events = self.tracing.static_events.setdefault(id(call), [])
                events.append(StaticEvent("the function", reason, None, call, targets[0]))
        return Transformed(transform, targets[0], options, why)

    def _control_flow(
        self,
        context: Context,
        an: Analyzer,
        call: cst.Call,
        transform: Transform,
        args: Args,
        star: bool,
    ) -> Value:
        name = transform.qualname.rsplit(".", 1)[1]
        bound = bind(transform.signature, args)
        why = ("op", transform.qualname, context.trace)
        level = max(context.level, transform.level)

        def arg(parameter: str) -> Value:
            return bound.arguments.get(parameter, U)

        def run(fn: Value, inputs: list[Value]) -> Value:
            if star or not an.invoke:
                return U
            callee = fn
            if isinstance(callee, (FunctionRef, BoundMethod, PartialRef)):
                wrapped = [(None, tracerize(v, why)) for v in inputs]
                return self._call_at(
                    context, call, callee, wrapped, level, transform.qualname, transform.stages
                )
            return U

        if name == "fori_loop":
            init = arg("init_val")
            run(arg("body_fun"), [Array(why, dtype="int", rank=0), init])
            return tracerize(init, why)
        if name == "while_loop":
            init = arg("init_val")
            run(arg("cond_fun"), [init])
            run(arg("body_fun"), [init])
            return tracerize(init, why)
        if name == "scan":
            init = arg("init")
            xs = arg("xs")
            run(arg("f"), [init, tracerize(xs, why).element() if xs is not U else U])
            return Seq("tuple", [tracerize(init, why), Value(PYTREE, why)])
        if name == "cond":
            operands = list(bound.extra_positional)
            results = [run(arg(k), operands) for k in ("true_fun", "false_fun")]
            return (
                arrays(join_all(results), why)
                if all(r is not U for r in results)
                else Value(PYTREE, why)
            )
        if name == "switch":
            branches = arg("branches")
            operands = list(bound.extra_positional)
            if isinstance(branches, Seq) and branches.items is not None:
                for branch in branches.items:
                    run(branch, operands)
            return Value(PYTREE, why)
        if name == "map":
            xs = arg("xs")
            run(arg("f"), [tracerize(xs, why).element() if xs is not U else U])
            return Value(PYTREE, why)
        return Value(PYTREE, why)

    def _call_at(
        self,
        context: Context,
        call: cst.CSTNode,
        callee: Value,
        args: Args,
        level: int,
        passer: str | None = None,
        stages: bool = False,
    ) -> Value:
        """Call `callee` with `args` at `level`: a function a library function calls
        (`passer`, for messages: the lax loop or `tree_map` that passes the arguments;
        `stages`: whether it stages the call, see `invoke`)."""
        wrap = None
        if passer is not None:

            def wrap(name: str, given: Value) -> Value:
                if not given.traced:
                    return given
                return rewhy(given, ("body", name, passer, call, context.trace))

        if isinstance(callee, PartialRef):
            bound: Args = [(None, v) for v in callee.args]
            merged = [*bound, *args, *callee.keywords.items()]
            return self._call_at(context, call, callee.target, merged, level, passer, stages)
        if isinstance(callee, BoundMethod):
            arguments = [(None, callee.receiver), *args]
            return self.invoke(
                context, call, callee.function, arguments, False, level, wrap=wrap, stages=stages
            )
        if isinstance(callee, FunctionRef):
            return self.invoke(context, call, callee, args, False, level, wrap=wrap, stages=stages)
        return U

    def _partial(
        self, context: Context, an: Analyzer, call: cst.Call, args: Args, star: bool
    ) -> Value:
        if not args or args[0][0] is not None:
            return U
        target_arg = call.args[0].value
        transform = self.tracing.discovery._resolve(target_arg, context.trace.path)
        options = [a for a in call.args[1:] if a.keyword is not None]
        if transform is not None:
            why = ("transform", transform.qualname, call)
            return Transformed(transform, None, options, why)  # type: ignore[arg-type]
        bound = bind(PARTIAL_SIGNATURE, args)
        target = bound.arguments["func"]
        if not isinstance(target, Ref):
            return U
        return PartialRef(target, list(bound.extra_positional), bound.extra_keywords, star)

    def _tree_map(self, context: Context, call: cst.Call, args: Args, star: bool) -> Value:
        bound = bind(_TREE_MAP, args)
        if star or not {"f", "tree"} <= bound.arguments.keys():
            return U
        fn, tree, rest = bound.arguments["f"], bound.arguments["tree"], bound.extra_positional
        inputs = [(None, tree_leaf(tree)), *((None, tree_leaf(v)) for v in rest)]
        result = self._call_at(context, call, fn, inputs, context.level, "tree_map")
        if not isinstance(fn, (FunctionRef, BoundMethod, PartialRef)):
            return U
        return tree_like(tree, result)

    def call_transformed(
        self, context: Context, call: cst.Call, t: Transformed, args: Args, star: bool
    ) -> Value:
        """Call a transformed function: its target runs at the transformation's level with
        the arguments as the static spec makes them (tracers, or Python values)."""
        transform = t.transform
        target = t.target
        bound: Args = []
        while isinstance(target, Transformed) and target.target is not None:
            target = target.target  # jax.jit(jax.vmap(f)): the inner one decides the spec
        receiver = isinstance(target, _SelfBound)
        if receiver:
            args = [(None, target.args[0]), *args]  # `self` of a jitted method: an argument
            target = target.target
        elif isinstance(target, PartialRef):
            bound = [(None, v) for v in target.args] + list(target.keywords.items())
            target = target.target
        if isinstance(target, ClassRef):
            # `jax.jit(Spline)(x, y)`: the constructor runs under the trace, on an instance
            # made there; what comes out is a pytree of the trace's outputs. A static spec
            # counts from the first argument after `self`, which the model's spec does not:
            # such an application stays unknown.
            given_spec = bool(_inner_options(t) or bound)
            level = max(context.level, transform.level)
            target = None if given_spec else self._traced_init(target, level)
        if isinstance(target, BoundMethod):
            bound = [(None, target.receiver), *bound]
            target = target.function
        if isinstance(target, (haiku.PairMethod, linen.ModuleMethod)) and not bound and not star:
            return self._framework_method(context, call, t, target, args)
        if isinstance(target, ForeignFunction) and not star:
            # Jitted in another file (crossfile/returned.py): only its header is known here,
            # enough for the static spec to check what this call passes.
            func = target.func
            kinds = application_params(
                _inner_transform(t), list(_inner_options(t)), func, False, 0, set(),
                defaults_unknown=False,
            )  # fmt: skip
            style = _inner_transform(t).style
            if style == "jit" and not bound and any(k == STATIC for k in kinds.values()):
                self._check_static(call, t, func, kinds, args, receiver, style, target)
            return self._transformed_result(context, t, None)
        if isinstance(target, Foreign) and target.role == "name" and not bound and not star:
            if _inner_transform(t).style == "filter":
                # `eqx.filter_jit(other_module.f)(x, n)`: the other file traces `f` with the
                # array arguments traced and the rest static; which they are is known only
                # here, where it is called (the application itself travels as an entry).
                why = ("transform", transform.qualname, call)
                given = [(k, filtered(v, why)) for k, v in args]
                level = max(context.level, transform.level)
                self._record(context, call, target.path, given, False, level=level)  # type: ignore[attr-defined]
            return self._transformed_result(context, t, None)
        if not isinstance(target, FunctionRef) or star:
            return self._transformed_result(context, t, None)
        func = target.func
        level = max(context.level, transform.level)
        entry = self._entry(t, func)
        positional_bound = sum(1 for k, _ in bound if k is None)
        kinds = application_params(
            _inner_transform(t), list(_inner_options(t)), func, False, positional_bound,
            {k for k, _ in bound if k is not None}, defaults_unknown=False,
        )  # fmt: skip
        p = func.params
        with_default = {
            x.name.value
            for x in (*p.posonly_params, *p.params, *p.kwonly_params)
            if x.default is not None
        }
        style = _inner_transform(t).style
        positional_names = [x.name.value for x in (*p.posonly_params, *p.params)]
        bound_names = set(positional_names[:positional_bound])
        bound_names.update(k for k, _ in bound if k is not None)

        def wrap(name: str, value: Value) -> Value:
            if name in bound_names:
                return value  # bound by partial or the bound method: not an argument
            if style == "filter":
                return filtered(value, ("param", name, entry))
            kind = kinds.get(name, UNKNOWN)
            if kind == STATIC:
                return value
            if kind == UNKNOWN:
                # vmap (unmapped), grad (not differentiated): the argument passes as it is.
                return value if style in ("vmap", "shard", "all", "grad") else U
            # A parameter with a default is traced because this call passes it.
            why = ("passed", name, entry, call) if name in with_default else ("param", name, entry)
            if style == "jit":
                reason = not_a_pytree(value)
                if reason is not None:
                    events = self.tracing.nonarray_events.setdefault(id(call), [])
                    events.append((name, reason, func, call))
                self._check_aux(value, call)
            if style == "filter":
                return filtered(value, why)
            return tracerize(value, why)

        all_args = [*bound, *args]
        if any(kind == STATIC for kind in kinds.values()):
            self._check_static(call, t, func, kinds, all_args, len(bound) + receiver, style)
        if receiver and self.tracing.fails_before_tracing(entry):
            return self._transformed_result(context, t, None)  # TypeError before any trace
        result = self.invoke(
            context, call, target, all_args, False, level, wrap=wrap, entry=entry, stages=stages(t)
        )
        return self._transformed_result(context, t, result, all_args, func)

    def _traced_init(self, ref: ClassRef, level: int) -> BoundMethod | None:
        """`__init__` of `ref`'s class (its own or a base's, a plain method), bound to a new
        instance built at `level`; None where the class has no such `__init__`."""
        cls = ref.cls
        found = cls.lookup("__init__")
        if found is None or found[1] != "method":
            return None
        method = found[0].methods["__init__"]
        if not method.plain or method.kind != "method":
            return None
        obj = Object(cls)
        obj.building, obj.constructed, obj.made_at = True, True, level
        return BoundMethod(FunctionRef(method.func, None, found[0]), obj)

    def _check_aux(self, value: Value, call: cst.CSTNode) -> None:
        """An instance of a `register_pytree_node_class` class whose aux data holds an
        array, given to jit: recorded at its `tree_flatten` (see frameworks/flattened.py)."""
        if not isinstance(value, Object) or not value.cls.registered:
            return
        flat = flattened.flattening(value.cls)
        if flat is None:
            return
        for attr in flat.aux:
            if isinstance(value.fields.get(attr), Array):
                events = self.tracing.aux_events.setdefault(id(flat.method), [])
                events.append((attr, value.cls.name, flat.aux_node, call))
                return

    def _framework_method(
        self, context: Context, call: cst.Call, t: Transformed, target: Any, args: Args
    ) -> Value:
        """`jax.jit(model.apply)(variables, x)`: every argument traced (a static spec is not
        read: the signature is the framework's), then the framework method runs."""
        transform = _inner_transform(t)
        if transform.style != "jit" or any(
            a.keyword is not None and a.keyword.value.startswith("static_") for a in t.options
        ):
            return self._transformed_result(context, t, None)
        why = ("call", t.transform.qualname, context.trace)
        traced_args = [(k, tracerize(v, why)) for k, v in args]
        level = max(context.level, transform.level)
        label = f"{t.transform.qualname}(....{target.method})"
        # Only jit's styles come here: it stages the method's body.
        if isinstance(target, linen.ModuleMethod):
            result = self._module_method(
                context, call, target, traced_args, False, level, label, stages(t)
            )
        else:
            result = self._pair_method(
                context, call, target, traced_args, False, level, label, stages(t)
            )
        return arrays(result, why)

    def _check_static(
        self,
        call: cst.Call,
        t: Transformed,
        func: Any,
        kinds: dict[str, int],
        args: Args,
        hidden: int,
        style: str,
        owner: Any = None,
    ) -> None:
        """Record static arguments whose value JAX cannot hash (see `unhashable`), at the
        argument (or, for `self` or a partial's arguments, at the transformation). `owner`
        stands for `func` in the events when it is another file's (a ForeignFunction)."""
        signature = Signature.of(func)
        targets = bind(signature, args).targets
        spec = None
        if style == "jit":
            # jax.jit: static_argnums holds for positional arguments, static_argnames for
            # keyword ones (each inferred from the other only when it alone is given).
            spec = spec_from_args(list(_inner_options(t))).effective(signature)
            if spec is None:
                return
        plain = all(not a.star for a in call.args)
        nodes: list[cst.CSTNode | None] = [None] * hidden
        nodes += [a.value for a in call.args] if plain else [None] * len(call.args)
        site = t.why[2] if t.why and len(t.why) > 2 else call
        index = 0
        for position, (keyword, value) in enumerate(args):
            if keyword is None:
                target = targets[position]
                name = target if target in signature.positional else None
                static = spec[0] if spec is not None else None
                is_static = index in static if static is not None else kinds.get(name) == STATIC
                index += 1
            else:
                name = keyword
                names = spec[1] if spec is not None else None
                is_static = name in names if names is not None else kinds.get(name) == STATIC
            if name is None or not is_static:
                continue
            why = unhashable(value)
            if why is None:
                continue
            node = nodes[position] if position < len(nodes) else None
            where = node if node is not None else (site if position < hidden else call)
            events = self.tracing.static_events.setdefault(id(where), [])
            events.append(StaticEvent(name, why, owner or func, where, value))

    def _transformed_result(
        self,
        context: Context,
        t: Transformed,
        result: Value | None,
        args: Args | None = None,
        func: Any = None,
    ) -> Value:
        transform = _inner_transform(t)
        why = ("call", t.transform.qualname, context.trace)
        style = transform.style
        if style == "grad":
            has_aux = _option_true(t.options, "has_aux")
            value_and_grad = "value_and_grad" in transform.qualname
            grads = Value(PYTREE, why)
            if args is not None and func is not None:
                grads = _differentiated(t, args, func, why)
            if not value_and_grad:
                if has_aux and result is not None:
                    parts = result.unpacked(2)
                    extra = aux(parts[1], why) if parts else Value(PYTREE, why)
                    return Seq("tuple", [grads, extra])
                return grads
            if result is None:
                return Seq("tuple", [Value(PYTREE, why), grads])
            if has_aux:
                parts = result.unpacked(2)
                if parts is None:
                    return Seq("tuple", [Value(PYTREE, why), grads])
                out = Seq("tuple", [arrays(parts[0], why), aux(parts[1], why)])
                return Seq("tuple", [out, grads])
            return Seq("tuple", [arrays(result, why), grads])
        if result is None or result is U:
            return Value(PYTREE, why)
        if style == "filter":
            return result
        if transform.abstract_only:
            return U
        return arrays(result, why)

    def _entry(self, t: Transformed, func: Any) -> Entry:
        site = t.why[2] if t.why and len(t.why) > 2 else func
        for entry in self.tracing.index.entries.get(id(func), []):
            if entry.site is site:
                return entry
        inner = _inner_transform(t)
        params = application_params(inner, list(t.options), func, False, 0, set())
        level = max(t.transform.level, inner.level)
        return Entry(t.transform, site, func, params, None, level, staged=stages(t))


_LAX_FLOW = frozenset({"fori_loop", "while_loop", "scan", "cond", "switch", "map"})


def _inner_options(t: Transformed) -> tuple[Any, ...]:
    inner = t
    while isinstance(inner.target, Transformed) and inner.target.target is not None:
        inner = inner.target
    return inner.options


def stages(t: Transformed) -> bool:
    """Whether any transformation of the chain (`jax.vmap(jax.jit(f))`) stages its body."""
    inner: Any = t
    while isinstance(inner, Transformed):
        if inner.transform.stages:
            return True
        inner = inner.target
    return False


def _inner_transform(t: Transformed) -> Transform:
    """The transformation whose options decide the parameters (the innermost)."""
    inner = t
    while isinstance(inner.target, Transformed) and inner.target.target is not None:
        inner = inner.target
    return inner.transform


def bind_receiver(value: Transformed, receiver: Value) -> Transformed:
    """A transformed method looked up on an instance: `self` is its first argument."""
    target = value.target
    if isinstance(target, Transformed):
        target = bind_receiver(target, receiver)
    elif isinstance(target, FunctionRef):
        return Transformed(value.transform, _SelfBound(target, receiver), value.options, value.why)
    return Transformed(value.transform, target, value.options, value.why)


# `jax.tree.map(f, tree, *rest, is_leaf)`.
_TREE_MAP = Signature(("f", "tree"), (), ("is_leaf",), "rest")


class _SelfBound(PartialRef):
    """`self` passed to a jitted method: an argument of the jitted function (static only if
    the spec says so), unlike a bound method given to `jax.jit(obj.m)`."""

    def __init__(self, function: FunctionRef, receiver: Value) -> None:
        super().__init__(function, [receiver], {})


def _option_true(options: Sequence[cst.Arg], name: str) -> bool:
    for arg in options:
        if arg.keyword is not None and arg.keyword.value == name:
            return type(arg.value) is cst.Name and arg.value.value == "True"  # type: ignore[attr-defined]
    return False


def _differentiated(t: Transformed, args: Args, func: Any, why: tuple[Any, ...]) -> Value:
    argnums = 0
    for arg in t.options:
        if arg.keyword is not None and arg.keyword.value == "argnums":
            if type(arg.value) is cst.Integer:
                argnums = int(arg.value.value, 0)  # type: ignore[attr-defined]
            else:
                return Value(PYTREE, why)
    positional = [v for k, v in args if k is None]
    if argnums < len(positional):
        return arrays(positional[argnums], why)
    return Value(PYTREE, why)
