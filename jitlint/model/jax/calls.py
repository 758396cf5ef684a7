"""Call resolution: what a call in interpreted code runs, and what it returns.

A callee is a value (values.py): a `FunctionRef` (a module function, a local def or lambda
with the frame it closes over), a `BoundMethod` (`self.m`, `obj.m`, `super().m`, a class
method), a `ClassRef` (a constructor: `__init__`, or the generated one of a dataclass, equinox
or flax module, then `__post_init__`/`__check_init__`), a `PartialRef` or a `Transformed`
function (`jax.jit(f)`, whose arguments become tracers as its static spec says). Calling one
analyses its body in a context of its own for the call's abstract arguments (`invoke`),
memoised on them. Library calls go by qualified name (library.py); lax loops and
`tree_map` also run their function arguments.

Budgets keep it linear in practice: a call nested deeper than `MAX_DEPTH` (`MAX_PYTHON_DEPTH`
from code that runs in Python), more than `MAX_PER_FUNCTION` contexts of one function, or
more than `MAX_CONTEXTS` in a module, is not followed: its result is unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.model.domain.classes import ClassInfo
from jitlint.model.domain.values import (
    PYTREE,
    STATIC,
    UNKNOWN,
    Array,
    BoundMethod,
    ClassRef,
    Dict,
    Foreign,
    FunctionRef,
    Object,
    PartialRef,
    Ref,
    S,
    Scalar,
    Seq,
    Transformed,
    U,
    Value,
    join,
)
from jitlint.model.jax.analyzer import Analyzer, Args, Context, ForeignRecord, bind, default_value
from jitlint.model.jax.crossfile import returned
from jitlint.model.jax.crossfile.records import MADE_BY, argument_kind, made_with_args
from jitlint.model.jax.crossfile.returned import VALUE_FACT
from jitlint.model.jax.crossfile.returns import ARRAY_FACT, LIST_FACT
from jitlint.model.jax.frameworks import haiku, linen
from jitlint.model.jax.library import (
    array_attribute,
    call_result,
    from_python,
    leaves_of,
    method_result,
    rewhy,
    tracerize,
    unknown_shape_attribute,
)
from jitlint.model.jax.pytree_fields import (
    ARRAY_FIELD,
    STATIC_FIELD,
    Instance,
    field_kind,
)
from jitlint.model.jax.transformed import Transformations, bind_receiver
from jitlint.model.jax.transforms import TRANSFORMS, Entry
from jitlint.python.builtins_facts import PARTIAL

MAX_DEPTH = 8
MAX_PYTHON_DEPTH = 3
MAX_PER_FUNCTION = 6
MAX_CONTEXTS = 400

_TREE_MAP = frozenset({"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"})
_TREE_LEAVES = frozenset({"jax.tree_util.tree_leaves", "jax.tree.leaves", "jax.tree_leaves"})
# Functions that run a program's `main(argv)` (absl's, and TensorFlow's copy of it).
_ENTRY_POINTS = frozenset({"absl.app.run", "tensorflow.compat.v1.app.run", "tensorflow.app.run"})


class SuperRef(Ref):
    """`super()` in a method of `cls`, for `receiver`."""

    __slots__ = ("cls", "receiver")

    def __init__(self, cls: ClassInfo, receiver: Value) -> None:
        super().__init__(None, "super")
        self.cls = cls
        self.receiver = receiver


class Calls(Transformations):
    def __init__(self, tracing: Any) -> None:  # the Tracing it resolves calls for
        self.tracing = tracing
        self.names = tracing.names
        self.memo: dict[Any, Context] = {}
        self.made = 0
        self.per_function: dict[int, int] = {}
        self.stack: list[Context] = []

    # ---- definitions ------------------------------------------------------------------
    def function_value(
        self,
        func: cst.FunctionDef,
        closure: Analyzer | None,
        path: Sequence[cst.CSTNode] | None,
        owner: ClassInfo | None = None,
    ) -> Value:
        """A `def` as its name sees it: the function, or what transformations among its
        decorators make of it (other decorators are taken to keep the function)."""
        value: Value = FunctionRef(func, closure, owner)
        if not func.decorators:
            return value
        where = [*(path if path is not None else self.tracing._path_to(func)), func]
        for decorator in reversed(func.decorators):
            resolved = self.tracing.discovery._transform_of(decorator.decorator, where)
            if resolved is not None:
                transform, options = resolved
                why = ("transform", transform.qualname, decorator.decorator)
                value = Transformed(transform, value, options, why)
        return value

    def define(self, context: Context, an: Analyzer, node: cst.CSTNode) -> Value:
        """The value a `def` or `class` statement inside an interpreted body binds."""
        if type(node) is cst.FunctionDef:
            return self.function_value(node, an, None)  # type: ignore[arg-type]
        if type(node) is cst.ClassDef:
            return ClassRef(self.tracing.classes.of(node, self.tracing._path_to(node)))  # type: ignore[arg-type]
        if type(node) is cst.ImportAlias:
            # What the import binds: the scope's binding made from this alias.
            scope = self.names.scope(context.func)
            for bindings in scope.bindings.values():
                for binding in bindings:
                    if binding.node is node:
                        return self.tracing._binding_value(binding, [])
        return S

    def store(self, context: Context, an: Analyzer, target: cst.CSTNode, value: Value) -> None:
        """`self.x = value` on an object being built; `d[k] = value` on a local dict."""
        if type(target) is cst.Attribute:
            base = an.values.get(id(target.value))  # type: ignore[attr-defined]
            if isinstance(base, Object) and base.building:
                base.fields[target.attr.value] = value  # type: ignore[attr-defined]
        elif type(target) is cst.Subscript and type(target.value) is cst.Name:  # type: ignore[attr-defined]
            name = target.value.value  # type: ignore[attr-defined]
            base = an.env.get(name)
            if isinstance(base, Dict) and len(target.slice) == 1:  # type: ignore[attr-defined]
                index = target.slice[0].slice  # type: ignore[attr-defined]
                key = an.values.get(id(index.value)) if type(index) is cst.Index else None
                if isinstance(key, Scalar) and key.known and base.entries is not None:
                    an.env[name] = Dict({**base.entries, key.const: value})
                else:
                    an.env[name] = Dict(
                        elem=join(base.elem, value) if base.entries != {} else value
                    )

    # ---- calls ------------------------------------------------------------------------
    def arguments(self, an: Analyzer, call: cst.Call) -> tuple[Args, bool]:
        """The call's arguments as (keyword, value); True when a `*`/`**` argument hides
        some (the ones it may fill, and all after it, are unknown)."""
        out: Args = []
        values = an.values
        for arg in call.args:
            value = values.get(id(arg.value), U)
            if arg.star == "*":
                if isinstance(value, Seq) and value.items is not None:
                    out.extend((None, item) for item in value.items)
                    continue
                return out, True
            if arg.star == "**":
                if (
                    isinstance(value, Dict)
                    and value.entries is not None
                    and all(isinstance(k, str) for k in value.entries)
                ):
                    out.extend(value.entries.items())  # type: ignore[arg-type]
                    continue
                return out, True
            out.append((arg.keyword.value if arg.keyword is not None else None, value))
        return out, False

    def call_value(self, context: Context, an: Analyzer, call: cst.Call) -> Value:
        """The value of `call`, running what it calls in the project."""
        args, star = self.arguments(an, call)
        func = call.func
        if type(func) is cst.Attribute:
            receiver = an.values.get(id(func.value), U)  # type: ignore[attr-defined]
            callee = self.member(context, receiver, func.attr.value, func)  # type: ignore[attr-defined]
            if isinstance(callee, (Ref, Object)):
                found = self.call(context, call, callee, args, star)
                if found is not None:
                    return found
            result = method_result(receiver, func.attr.value, args)  # type: ignore[attr-defined]
            if result is not None:
                return result
            if receiver.traced and type(receiver) is not Value:
                return U  # a method of a container or object the model does not know
        else:
            callee = an.values.get(id(func))
            if isinstance(callee, (Ref, Object)):
                found = self.call(context, call, callee, args, star)
                if found is not None:
                    return found
            if type(func) is cst.Name and func.value == "super" and not call.args:  # type: ignore[attr-defined]
                found = self._super(context)
                if found is not None:
                    return found
        result = self.library_value(context, an, call, args, star)
        if context.level == 0 and isinstance(callee, Foreign) and callee.role == "name":
            self._python_call(context, call, callee.path, args, star)
        if result is U and isinstance(callee, Foreign) and callee.role == "name":
            returned = self.returned_value(callee.path, call)
            if returned is not None:
                return returned
            facts = {getattr(r, "status", "") for r in self.tracing.inbound.get(callee.path, ())}
            if LIST_FACT in facts:  # the function returns a list (model/jax/crossfile/returns.py)
                return Seq("list", elem=U)
            if ARRAY_FACT in facts and context.level > 0:
                return Array(("op", callee.path.lstrip("."), context.trace), sure=False)
            # What another module's class makes, and with what (a `*`/`**` argument: unknown).
            # Made in Python, an array argument is a constant a later trace closes over.
            made_with = None
            if not star:
                made_with = tuple((k, U if v.traced and context.level == 0 else v) for k, v in args)
            return Foreign(callee.path, "instance", made_with=made_with, made_by=callee.made_by)
        return result

    def returned_value(self, path: str, call: cst.CSTNode) -> Value | None:
        """What the function or method `path` of another module returns, if that module
        exported it (model/jax/crossfile/returned.py)."""
        for record in self.tracing.inbound.get(path, ()):
            status = getattr(record, "status", "")
            if status.startswith(VALUE_FACT):
                origin = f"`{path.lstrip('.')}` ({getattr(record, 'site', '?')})"
                value = returned.decode(status, call, origin)
                if value is not None:  # None: a fact about the function, not its result
                    return value
        return None

    def library_value(
        self,
        context: Context,
        an: Analyzer,
        call: cst.Call,
        args: Args | None = None,
        star: bool = False,
    ) -> Value:
        """The value of `call` from what the library tables know, by qualified name."""
        if args is None:
            args, star = self.arguments(an, call)
            func = call.func
            if type(func) is cst.Attribute:
                receiver = an.values.get(id(func.value), U)  # type: ignore[attr-defined]
                result = method_result(receiver, func.attr.value, args)  # type: ignore[attr-defined]
                if result is not None:
                    return result
                if receiver.traced and type(receiver) is not Value:
                    return U
            callee = an.values.get(id(func))
            if isinstance(callee, Transformed):
                return self._transformed_result(context, callee, None)
        func = call.func
        if type(func) is not cst.Name and type(func) is not cst.Attribute:
            callee = an.values.get(id(func))
            if isinstance(callee, Transformed):
                return self._transformed_result(context, callee, None)
            return U
        tracing = self.tracing
        qualnames = tracing.qualified(context.trace, func)
        if not qualnames or "" in qualnames:
            return U
        if qualnames <= TRANSFORMS.keys():
            transforms = {TRANSFORMS[q] for q in qualnames}
            if len(transforms) != 1:
                return U
            return self._transform(context, an, call, transforms.pop(), args, star)
        if len(qualnames) != 1:
            kinds = {call_result(q, args, star, (), False).kind for q in qualnames}
            return S if kinds == {STATIC} else U
        qualname = next(iter(qualnames))
        if qualname in PARTIAL:
            return self._partial(context, an, call, args, star)
        hook = plugins.call_hook(qualname)  # a framework's own function (frameworks/)
        if hook is not None:

            def argument_name(index: int) -> str | None:
                found = tracing.qualified(context.trace, call.args[index].value)
                return next(iter(found)) if len(found) == 1 else None

            returned = hook(plugins.CallArgs(args, star, argument_name))
            if returned is not None:
                return returned
        if an.invoke and qualname in _TREE_MAP:
            return self._tree_map(context, call, args, star)
        if qualname in _ENTRY_POINTS and context.level == 0 and args:
            # `app.run(main)` calls `main(argv)`: the program's Python code, where the calls
            # of jitted functions say what their parameters receive.
            main = args[0][1] if args[0][0] in (None, "main") else None
            if isinstance(main, FunctionRef) and not star:
                self.invoke(context, call, main, [(None, Seq("list", elem=S))], False)
            return U
        if qualname in _TREE_LEAVES and args:
            return leaves_of(args[0][1])
        why = ("op", qualname, context.trace)
        # Under vmap or grad alone (nothing on the path stages) an operation runs eagerly
        # unless one of its inputs is traced, as under `ensure_compile_time_eval`.
        eager = context.level > 0 and not context.staged
        return call_result(qualname, args, star, why, bool(an.compile_time_eval), eager)

    def call(
        self, context: Context, call: cst.Call, callee: Value, args: Args, star: bool
    ) -> Value | None:
        """Call `callee`; None when it is not something the model runs."""
        if isinstance(callee, FunctionRef):
            return self.invoke(context, call, callee, args, star)
        if isinstance(callee, BoundMethod):
            receiver = callee.receiver
            if isinstance(receiver, Object) and receiver.made_at == 0 and context.level > 0:
                self._self_call(context, call, receiver, callee.function, args, star)
            return self.invoke(
                context, call, callee.function, [(None, callee.receiver), *args], star
            )
        if isinstance(callee, ClassRef):
            return self.construct(context, call, callee.cls, args, star)
        if isinstance(callee, Foreign):
            if callee.role == "name":
                return None  # the library tables, then an instance (see call_value)
            # A method of another module's class, or an instance's `__call__`: the project
            # pass hands the call to that module (self is an instance it knows nothing of).
            targets = (
                [callee.path, *callee.also]
                if callee.role == "member"
                else [f"{callee.path}.__call__"]
            )
            made = made_with_args(callee.made_with)
            for target in targets:
                self._record(context, call, target, [(None, U), *args, *made], star)
            by = callee.made_by
            if callee.role == "member" and callee.made_with is not None and by is not None:
                # Made by `Owner.factory(...)`: if that is a class-method constructor, the
                # method is `Owner`'s; the defining file checks (crossfile/records.py).
                method = callee.path.rpartition(".")[2]
                factory = [(f"{MADE_BY}{by[1]}", U)]
                self._record(
                    context, call, f"{by[0]}.{method}", [(None, U), *args, *made, *factory], star
                )
            returned = self.returned_value(callee.path, call) if callee.role == "member" else None
            return returned if returned is not None else U
        if isinstance(callee, Object):  # `obj(...)` runs `__call__`
            method = self.member(context, callee, "__call__", call)
            if isinstance(method, (BoundMethod, Transformed)):
                return self.call(context, call, method, args, star)
            return None
        if isinstance(callee, PartialRef):
            bound: Args = [(None, v) for v in callee.args]
            given = {k for k, _ in args if k is not None}
            keywords = [(k, v) for k, v in callee.keywords.items() if k not in given]
            merged = [*bound, *[a for a in args if a[0] is None], *keywords,
                      *[a for a in args if a[0] is not None]]  # fmt: skip
            target = callee.target
            if isinstance(target, Foreign) and target.role == "name":
                # A partial of another module's function (crossfile/returned.py), called from traced
                # code: the project pass traces it there with every argument it gets.
                self._record(context, call, target.path, merged, star or callee.star)
                return self.returned_value(target.path, call)
            return self.call(context, call, target, merged, star or callee.star)
        if isinstance(callee, haiku.PairMethod):
            return self._pair_method(context, call, callee, args, star)
        if isinstance(callee, linen.ModuleMethod):
            return self._module_method(context, call, callee, args, star)
        if isinstance(callee, linen.Lifted):
            return self._lifted_call(context, call, callee, args, star)
        if (
            isinstance(callee, Transformed)
            and isinstance(callee.target, ClassRef)
            and callee.transform.qualname in linen.LIFTED
        ):
            made = self.construct(context, call, callee.target.cls, args, star)
            if isinstance(made, Object):
                static = linen.static_positions(callee.options)
                return linen.Lifted(made, callee.transform, static)
            return U
        if isinstance(callee, Transformed):
            if callee.target is None:  # `partial(jax.jit, ...)` applied to a function
                if len(args) == 1 and args[0][0] is None and not star:
                    why = ("transform", callee.transform.qualname, call)
                    return Transformed(callee.transform, args[0][1], callee.options, why)
                return U
            return self.call_transformed(context, call, callee, args, star)
        return None

    def _pair_method(
        self,
        context: Context,
        call: cst.CSTNode,
        method: haiku.PairMethod,
        args: Args,
        star: bool,
        level: int | None = None,
        label: str | None = None,
        stages: bool = False,
    ) -> Value:
        """`apply`/`init` of an `hk.transform` pair: runs the transformed function (`level`,
        `stages`: under the transformation of `jax.jit(f.apply)`)."""
        why = ("call", method.pair.transform.qualname, context.trace)
        given = None if star else haiku.split_arguments(method, args)
        target = method.pair.target
        returned: Value = U
        at = context.level if level is None else level
        if given is not None and isinstance(target, (FunctionRef, PartialRef, BoundMethod)):
            passer = label or method.method
            returned = self._call_at(context, call, target, given, at, passer, stages)
        elif given is not None and isinstance(target, Foreign) and target.role == "name":
            # Another module's function (a pair that travelled to this file): the project
            # pass runs it there with these arguments.
            self._record(context, call, target.path, given, False, level=at)
        return haiku.result(method, returned, why)

    def _module_method(
        self,
        context: Context,
        call: cst.CSTNode,
        method: linen.ModuleMethod,
        args: Args,
        star: bool,
        level: int | None = None,
        label: str | None = None,
        stages: bool = False,
    ) -> Value:
        """`module.apply`/`module.init` of a linen Module: runs `__call__` (or `method=`)."""
        why = ("call", f"{linen.BASE}.{method.method}", context.trace)
        name = linen.target_method(args)
        given = None if star or name is None else linen.split_arguments(args)
        returned: Value = U
        if given is not None:
            bound = self.member(context, method.module, name)  # type: ignore[arg-type]
            if isinstance(bound, BoundMethod):
                returned = self._call_at(
                    context, call, bound, given, context.level if level is None else level,
                    label or method.method, stages,
                )  # fmt: skip
        return linen.result(method, returned, why)

    def _lifted_call(
        self, context: Context, call: cst.Call, lifted: linen.Lifted, args: Args, star: bool
    ) -> Value:
        """Calling an instance of a lifted Module class: `__call__` under the transformation,
        the arguments at non-static positions (the module is 0) traced."""
        bound = self.member(context, lifted.module, "__call__")
        if star or lifted.static is None or not isinstance(bound, BoundMethod):
            return U
        why = ("call", lifted.transform.qualname, context.trace)
        given: Args = []
        for index, (keyword, value) in enumerate(args):
            if keyword is not None:
                given.append((keyword, U))  # by keyword: the spec by position does not say
            elif index + 1 in lifted.static:
                given.append((None, value))
            else:
                given.append((None, tracerize(value, why)))
        level = max(context.level, lifted.transform.level)
        qualname = lifted.transform.qualname
        return self._call_at(context, call, bound, given, level, qualname, lifted.transform.stages)

    # ---- running a body ---------------------------------------------------------------
    def invoke(
        self,
        context: Context,
        call: cst.CSTNode,
        fref: FunctionRef,
        args: Args,
        star: bool,
        level: int | None = None,
        label: str | None = None,
        wrap: Any = None,
        entry: Entry | None = None,
        stages: bool = False,
    ) -> Value:
        """Analyse `fref`'s body for these arguments (memoised); its return value. `entry`:
        the transformation it runs under, when the call is of a transformed function;
        `stages`: whether that transformation stages its body (the caller's staging holds
        for whatever it calls)."""
        func = fref.func
        if level is None:
            level = context.level
        staged = stages or (context.level > 0 and context.staged)
        analyzer = context.analyzer
        if analyzer is not None and not analyzer.invoke:
            return U
        depth = len(self.stack)
        if depth >= (MAX_DEPTH if level > 0 else MAX_PYTHON_DEPTH) or self.made >= MAX_CONTEXTS:
            return U
        if context.func is func or any(c.func is func for c in self.stack):
            return U  # recursion: a cycle adds nothing new
        if type(func) is cst.FunctionDef and func.asynchronous is not None:  # type: ignore[union-attr]
            return U
        if wrap is None:
            wrap = self._arg_wrapper(context, call, label)
        params = bind(func, args, star, wrap)
        order = tuple(params[name].key() for name in params)
        key = (id(func), level, staged, id(fref.closure), order)
        found = self.memo.get(key)
        if found is not None:
            return found.returns
        count = self.per_function.get(id(func), 0)
        if count >= MAX_PER_FUNCTION:
            return U
        self.per_function[id(func)] = count + 1
        self.made += 1
        trace = self.tracing.function_trace(func)
        created = Context(
            trace, level, params, fref.closure, fref.owner, (context.trace, call), staged
        )
        created.entry = entry
        self.memo[key] = created
        self.stack.append(context)
        try:
            self.tracing.analyse(created, invoke=True)
        finally:
            self.stack.pop()
        return created.returns

    def _arg_wrapper(self, context: Context, call: cst.CSTNode, label: str | None) -> Any:
        caller = context.trace

        def wrap(name: str, given: Value) -> Value:
            if not given.traced:
                return given
            return rewhy(given, ("arg", name, caller, call, given.why, label))

        return wrap

    # ---- classes ----------------------------------------------------------------------
    def construct(
        self,
        context: Context,
        call: cst.Call | None,
        cls: ClassInfo,
        args: Args,
        star: bool,
        wrap: Any = None,
    ) -> Value:
        """`cls(...)`: a new instance, its fields set by `__init__` (the class's own, or the
        one a dataclass, equinox or flax module generates), then `__post_init__` and
        equinox's `__check_init__`."""
        if cls.pytree is None:
            cls.pytree = self.tracing.pytree_classes.of(cls.node, cls.path)
        obj = Object(cls)
        obj.building = obj.constructed = True
        obj.made_at = context.level
        label = f"`{cls.name}(...)`"
        framework = plugins.plugin(cls.kind)
        init = cls.lookup("__init__")
        generated = False
        if init is not None and init[1] == "method":
            method = init[0].methods["__init__"]
            if not method.plain or method.kind != "method":
                obj.building = False
                return obj
            fref = FunctionRef(method.func, None, init[0])
            self.invoke(context, call, fref, [(None, obj), *args], star, label=label, wrap=wrap)
        elif init is None and framework is not None and framework.generated_init:
            generated = True
            self._generated_init(context, call, cls, obj, args, star, label, wrap)
        if framework is not None and framework.post_init and generated:
            self._run_method(context, call, obj, "__post_init__", label)
        if framework is not None and framework.check_init:
            for owner in reversed(cls.mro):
                if "__check_init__" in owner.methods:
                    method = owner.methods["__check_init__"]
                    if method.plain and method.kind == "method":
                        fref = FunctionRef(method.func, None, owner)
                        self.invoke(context, call, fref, [(None, obj)], False, label=label)
        obj.building = False
        return obj

    def _generated_init(
        self,
        context: Context,
        call: cst.Call,
        cls: ClassInfo,
        obj: Object,
        args: Args,
        star: bool,
        label: str,
        wrap: Any = None,
    ) -> None:
        fields = cls.init_fields()
        names = [f[0] for f in fields]
        if wrap is None:
            wrap = self._arg_wrapper(context, call, label)
        index = 0
        for keyword, value in args:
            if keyword is None:
                if index < len(names):
                    obj.fields[names[index]] = wrap(names[index], value)
                index += 1
            elif keyword in names:
                obj.fields[keyword] = wrap(keyword, value)
        if star:
            return
        for name, _, default in fields:
            if name not in obj.fields and default is not None:
                obj.fields[name] = default_value(default)

    def _run_method(
        self, context: Context, call: cst.Call, obj: Object, name: str, label: str
    ) -> None:
        found = obj.cls.lookup(name)
        if found is None or found[1] != "method":
            return
        method = found[0].methods[name]
        if method.plain and method.kind == "method":
            fref = FunctionRef(method.func, None, found[0])
            self.invoke(context, call, fref, [(None, obj)], False, label=label)

    def item(self, context: Context, node: cst.CSTNode, base: Value, index: Value) -> Value:
        """`obj[index]`: the class's `__getitem__`, run (or recorded for another module)."""
        if isinstance(base, Foreign):
            if base.role == "instance":
                target = f"{base.path}.__getitem__"
                self._record(context, node, target, [(None, U), (None, index)], False)
            return U
        method = self.member(context, base, "__getitem__", node)
        if isinstance(method, (BoundMethod, Transformed)):
            found = self.call(context, node, method, [(None, index)], False)  # type: ignore[arg-type]
            return found if found is not None else U
        return U

    def _self_call(
        self,
        context: Context,
        call: cst.CSTNode,
        receiver: Object,
        function: FunctionRef,
        args: Args,
        star: bool,
    ) -> None:
        """`self.m(...)` from traced code, on a receiver made outside the trace: a subclass
        may override `m` (the template-method shape), so the call is kept for dispatch to
        the overrides, here and in other files (tracing.dispatch_self_calls)."""
        func = function.func
        if type(func) is not cst.FunctionDef or receiver.cls.path != [self.tracing.module]:
            return  # a nested class: no other file can subclass it
        kinds = [(None, UNKNOWN), *((k, argument_kind(v)) for k, v in args)]
        target = f"{receiver.cls.name}.{func.name.value}"  # type: ignore[union-attr]
        record = ForeignRecord(target, call, context, context.level, kinds, star)
        self.tracing.self_calls.append(record)

    def _record(
        self,
        context: Context,
        call: cst.CSTNode,
        target: str,
        args: Args,
        star: bool,
        options: list[cst.Arg] | None = None,
        level: int | None = None,
        bound: tuple[int, tuple[str, ...]] = (1, ()),
    ) -> None:
        """An outbound call (or, with `options`, transformation) for the project pass."""
        level = context.level if level is None else level
        if level == 0:
            return  # a call made in Python: nothing is traced there
        kinds = [(k, argument_kind(v)) for k, v in args]
        record = ForeignRecord(target, call, context, level, kinds, star, options, bound)
        self.tracing.foreign_records.append(record)

    def _python_call(
        self, context: Context, call: cst.CSTNode, target: str, args: Args, star: bool
    ) -> None:
        """A call made in Python of another module's function that passes a value the
        records carry (a pair of functions: returned.argument_fact): an outbound record at
        level 0, so that the callee's file knows what its parameter holds."""
        if star:
            return
        module = self.tracing.module
        index = self.tracing.index

        def own(func: Any) -> str | None:
            top = type(func) is cst.FunctionDef and index.path(func) == [module]
            return func.name.value if top else None

        values = []
        for position, (_, value) in enumerate(args):
            fact = returned.argument_fact(value, own)
            if fact is not None:
                values.append((position, fact))
        if values:
            # Only the values: what a Python call's other arguments become is the Python
            # calls' own records' concern (project/outbound.py).
            kinds = [(k, UNKNOWN) for k, _ in args]
            record = ForeignRecord(target, call, context, 0, kinds, star, values=tuple(values))
            self.tracing.foreign_records.append(record)

    def member(
        self, context: Context, base: Value, attr: str, node: cst.CSTNode | None = None
    ) -> Value | None:
        """`base.attr` for objects, classes and `super()`; None for other values."""
        if isinstance(base, Foreign):
            if base.role == "name":
                return Foreign(f"{base.path}.{attr}", made_by=(base.path, attr))
            if base.role == "instance":
                return Foreign(
                    f"{base.path}.{attr}", "member", made_with=base.made_with,
                    made_by=base.made_by,
                )  # fmt: skip
            return U
        if isinstance(base, SuperRef):
            receiver = base.receiver
            cls = receiver.cls if isinstance(receiver, Object) else base.cls
            found = cls.lookup(attr, after=base.cls)
            if found is None:
                return _inherited(cls, attr, base.cls)
            if found[1] == "field":
                return U  # a field lives on the instance; super() does not say its value
            return self._class_member(context, found[0], attr, found[1], receiver)
        if isinstance(base, Object):
            framework = linen.member(base, attr)
            if framework is not None:
                return framework
            if attr in base.fields:
                found = base.fields[attr]
                if _unknown_python(found):
                    # Given a Python value the model does not know: its declared type.
                    found = _declared_scalar(base.cls, attr) or found
                if base.made_at == 0 and context.level > 0:
                    # Made in Python: a JAX array in it is a concrete constant, which NumPy
                    # may read, not a tracer.
                    return from_python(found)
                return found
            declared = base.declared
            if isinstance(declared, Instance):
                kind = field_kind(declared, attr)
                if kind == STATIC_FIELD:
                    return _declared_scalar(base.cls, attr) or S
                if kind == ARRAY_FIELD:
                    return Array(("field", attr, declared, base.why), sure=True)
                if kind == "pytree":
                    return Value(PYTREE, ("field", attr, declared, base.why))
            found = base.cls.lookup(attr)
            if found is None:
                return _inherited(base.cls, attr, None)
            owner, how = found
            if how == "field":
                # Not given a value the model saw: a Python scalar if so declared (an
                # instance nothing traces; a traced one's fields are leaves, see `declared`).
                return (not base.traced and _declared_scalar(base.cls, attr)) or U
            return self._class_member(context, owner, attr, how, base, node)
        if isinstance(base, Transformed):
            return haiku.member(base, attr)
        if isinstance(base, ClassRef):
            found = base.cls.lookup(attr)
            if found is None:
                return U
            owner, how = found
            if how == "field":
                return U
            return self._class_member(context, owner, attr, how, base, node)
        return None

    def _class_member(
        self,
        context: Context,
        owner: ClassInfo,
        attr: str,
        how: str,
        receiver: Value,
        node: cst.CSTNode | None = None,
    ) -> Value:
        if how == "attribute":
            expr = owner.attributes.get(attr)
            return default_value(expr) if expr is not None else U
        method = owner.methods[attr]
        fref = FunctionRef(method.func, None, owner)
        instance = isinstance(receiver, Object)
        if method.kind == "staticmethod":
            return fref if method.plain else U
        if method.kind == "classmethod":
            cls_value = ClassRef(receiver.cls) if instance else receiver  # type: ignore[attr-defined]
            return BoundMethod(fref, cls_value) if method.plain else U
        if method.kind == "property":
            if not instance or not method.plain or node is None:
                return U
            return self.invoke(context, node, fref, [(None, receiver)], False)
        if method.kind != "method":
            return U
        if not method.plain:
            value = self.function_value(method.func, None, None, owner)
            if not isinstance(value, Transformed):
                return U  # a decorator the model does not know
            if instance:
                return bind_receiver(value, receiver)
            return value
        return BoundMethod(fref, receiver) if instance else fref

    def _super(self, context: Context) -> Value | None:
        owner = context.owner or self._owner(context)
        if owner is None or type(context.func) is not cst.FunctionDef:
            return None
        params = context.func.params  # type: ignore[union-attr]
        first = [*params.posonly_params, *params.params]
        if not first:
            return None
        receiver = context.analyzer.env.get(first[0].name.value, U) if context.analyzer else U
        return SuperRef(owner, receiver)

    def _owner(self, context: Context) -> ClassInfo | None:
        path = context.trace.path  # [..., class, its body, the function, its body]
        if len(path) >= 4 and type(path[-4]) is cst.ClassDef:
            return self.tracing.classes.of(path[-4], path[:-4])  # type: ignore[arg-type]
        return None

    def attribute_value(
        self, context: Context, an: Analyzer, node: cst.Attribute, base: Value
    ) -> Value:
        attr = node.attr.value
        if isinstance(base, Foreign):
            found = unknown_shape_attribute(base, attr)  # `.shape` of what it returned
            if found is not None:
                return found
        found = self.member(context, base, attr, node if an.invoke else None)
        if found is not None:
            return found
        found = array_attribute(base, attr)
        if found is not None:
            return found
        if isinstance(base, (Seq, Dict, Scalar, Ref)):
            return S if base.kind == STATIC else U
        return S if base.kind == STATIC else U


def _unknown_python(value: Value) -> bool:
    """A value the model knows nothing of but that it is not traced: unknown, a Python
    value of no known type, or a name of another module (`config.num_graphs`)."""
    if isinstance(value, Foreign):
        return True
    return type(value) is Value and value.pytype is None and not value.traced


def _declared_scalar(cls: ClassInfo, attr: str) -> Value | None:
    """The field `attr` of an instance of `cls` when its class declares it a builtin scalar
    type (`num_graphs: int`): a Python value of that type, never None."""
    pytype = cls.scalar_field(attr)
    return Scalar(pytype) if pytype is not None else None


def _inherited(cls: ClassInfo, attr: str, after: ClassInfo | None) -> Value:
    """An attribute of an instance that the module's classes do not define: a member of
    a base another module defines, if that is where it must be."""
    bases = cls.imported_bases_after(after)
    if not bases:
        return U
    paths = [f"{base}.{attr}" for base in bases]
    return Foreign(paths[0], "member", tuple(paths[1:]))


__all__ = ["MAX_CONTEXTS", "MAX_DEPTH", "MAX_PER_FUNCTION", "MAX_PYTHON_DEPTH", "Calls"]
