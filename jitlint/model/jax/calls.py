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
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.model.domain.classes import FIELD_INIT, ClassInfo
from jitlint.model.domain.names import leaf_name
from jitlint.model.domain.values import (
    MISSING,
    PYTREE,
    STATIC,
    TRACED,
    TRANSFORMED,
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
    constant,
    join,
    join_all,
)
from jitlint.model.jax.context import Context, ForeignRecord
from jitlint.model.jax.jit import Signature, spec_from_args
from jitlint.model.jax.library import (
    array_attribute,
    arrays,
    call_result,
    leaves_of,
    method_result,
    tree_leaf,
    tree_like,
)
from jitlint.model.jax.pytree_fields import (
    ARRAY_FIELD,
    STATIC_FIELD,
    Instance,
    field_kind,
)
from jitlint.model.jax.transforms import TRANSFORMS, Entry, Transform, application_params

if TYPE_CHECKING:
    from jitlint.model.jax.analyzer import Analyzer

MAX_DEPTH = 8
MAX_PYTHON_DEPTH = 3
MAX_PER_FUNCTION = 6
MAX_CONTEXTS = 400

Args = list[tuple[str | None, Value]]
_TREE_MAP = frozenset({"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"})
_TREE_LEAVES = frozenset({"jax.tree_util.tree_leaves", "jax.tree.leaves", "jax.tree_leaves"})
_PYTREE_KINDS = frozenset({"equinox", "flax.struct", "namedtuple", "chex"})
_PARTIAL = frozenset({"functools.partial"})


class SuperRef(Ref):
    """`super()` in a method of `cls`, for `receiver`."""

    __slots__ = ("cls", "receiver")

    def __init__(self, cls: ClassInfo, receiver: Value) -> None:
        super().__init__(None, "super")
        self.cls = cls
        self.receiver = receiver


class Calls:
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
        if result is U and isinstance(callee, Foreign) and callee.role == "name":
            return Foreign(callee.path, "instance")  # what another module's class makes
        return result

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
        if qualname in _PARTIAL:
            return self._partial(context, an, call, args, star)
        if an.invoke and qualname in _TREE_MAP:
            return self._tree_map(context, call, args, star)
        if qualname in _TREE_LEAVES and args:
            return leaves_of(args[0][1])
        why = ("op", qualname, context.trace)
        return call_result(qualname, args, star, why, bool(an.compile_time_eval))

    def call(
        self, context: Context, call: cst.Call, callee: Value, args: Args, star: bool
    ) -> Value | None:
        """Call `callee`; None when it is not something the model runs."""
        if isinstance(callee, FunctionRef):
            return self.invoke(context, call, callee, args, star)
        if isinstance(callee, BoundMethod):
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
            target = callee.path if callee.role == "member" else f"{callee.path}.__call__"
            self._record(context, call, target, [(None, U), *args], star)
            return U
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
            return self.call(context, call, callee.target, merged, star or callee.star)
        if isinstance(callee, Transformed):
            if callee.target is None:  # `partial(jax.jit, ...)` applied to a function
                if len(args) == 1 and args[0][0] is None and not star:
                    why = ("transform", callee.transform.qualname, call)
                    return Transformed(callee.transform, args[0][1], callee.options, why)
                return U
            return self.call_transformed(context, call, callee, args, star)
        return None

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
    ) -> Value:
        """Analyse `fref`'s body for these arguments (memoised); its return value. `entry`:
        the transformation it runs under, when the call is of a transformed function."""
        func = fref.func
        if level is None:
            level = context.level
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
        key = (id(func), level, id(fref.closure), order)
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
            trace, level, params, fref.closure, fref.owner, site=(context.trace, call)
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
        obj.building = True
        obj.made_at = context.level
        label = f"`{cls.name}(...)`"
        framework = cls.kind
        init = cls.lookup("__init__")
        generated = False
        if init is not None and init[1] == "method":
            method = init[0].methods["__init__"]
            if not method.plain or method.kind != "method":
                obj.building = False
                return obj
            fref = FunctionRef(method.func, None, init[0])
            self.invoke(context, call, fref, [(None, obj), *args], star, label=label, wrap=wrap)
        elif init is None and framework in FIELD_INIT:
            generated = True
            self._generated_init(context, call, cls, obj, args, star, label, wrap)
        if framework in ("dataclass", "equinox", "flax.struct") and generated:
            self._run_method(context, call, obj, "__post_init__", label)
        if framework == "equinox":
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

    def _record(
        self,
        context: Context,
        call: cst.CSTNode,
        target: str,
        args: Args,
        star: bool,
        options: list[cst.Arg] | None = None,
        level: int | None = None,
    ) -> None:
        """An outbound call (or, with `options`, transformation) for the project pass."""
        level = context.level if level is None else level
        if level == 0:
            return  # a call made in Python: nothing is traced there
        kinds = [(k, v.kind) for k, v in args]
        record = ForeignRecord(target, call, context, level, kinds, star, options)
        self.tracing.foreign_records.append(record)

    def member(
        self, context: Context, base: Value, attr: str, node: cst.CSTNode | None = None
    ) -> Value | None:
        """`base.attr` for objects, classes and `super()`; None for other values."""
        if isinstance(base, Foreign):
            if base.role == "name":
                return Foreign(f"{base.path}.{attr}")
            if base.role == "instance":
                return Foreign(f"{base.path}.{attr}", "member")
            return U
        if isinstance(base, SuperRef):
            receiver = base.receiver
            cls = receiver.cls if isinstance(receiver, Object) else base.cls
            found = cls.lookup(attr, after=base.cls)
            if found is None:
                return _inherited(cls, attr, base.cls)
            return self._class_member(context, found[0], attr, found[1], receiver)
        if isinstance(base, Object):
            if attr in base.fields:
                return base.fields[attr]
            declared = base.declared
            if isinstance(declared, Instance):
                kind = field_kind(declared, attr)
                if kind == STATIC_FIELD:
                    return S
                if kind == ARRAY_FIELD:
                    return Array(("field", attr, declared, base.why), sure=True)
                if kind == "pytree":
                    return Value(PYTREE, ("field", attr, declared, base.why))
            found = base.cls.lookup(attr)
            if found is None:
                return _inherited(base.cls, attr, None)
            owner, how = found
            if how == "field":
                return U
            return self._class_member(context, owner, attr, how, base, node)
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
                return _bind_receiver(value, receiver)
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
        found = self.member(context, base, attr, node if an.invoke else None)
        if found is not None:
            return found
        found = array_attribute(base, attr)
        if found is not None:
            return found
        if isinstance(base, (Seq, Dict, Scalar, Ref)):
            return S if base.kind == STATIC else U
        return S if base.kind == STATIC else U

    # ---- transformations --------------------------------------------------------------
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
        positional = [v for k, v in args if k is None]
        options = [a for a in call.args if a.keyword is not None]
        why = ("transform", transform.qualname, call)
        if (
            transform.qualname.startswith(("jax.lax.", "haiku.", "flax.nnx."))
            and transform.style == "all"
            and transform.qualname.rsplit(".", 1)[1] in _LAX_FLOW
        ):
            return self._control_flow(context, an, call, transform, args, star)
        if star:
            return Transformed(transform, U, options, why)
        targets = [positional[i] for i in transform.targets if i < len(positional)]
        targets += [v for k, v in args if k in transform.target_keywords]
        if not targets:
            return Transformed(transform, None, options, why)  # type: ignore[arg-type]
        target = targets[0]
        if isinstance(target, Foreign) and target.role == "member":
            # `jax.jit(net.apply)` with `net` an instance of another module's class: the
            # method is traced there, `self` bound.
            level = max(context.level, transform.level)
            params = [a for a in options if a.keyword is not None]
            self._record(context, call, target.path, [(None, U)], False, params, level)
        if transform.style == "jit" and isinstance(targets[0], Object):
            # jit keys its cache on the callable: an instance must be hashable.
            reason = unhashable(targets[0])
            if reason is not None:
                events = self.tracing.static_events.setdefault(id(call), [])
                events.append(("the function", reason, None, call))
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
        positional = [v for k, v in args if k is None]
        keywords = {k: v for k, v in args if k is not None}
        why = ("op", transform.qualname, context.trace)
        level = max(context.level, transform.level)

        def arg(index: int, keyword: str) -> Value:
            if index < len(positional):
                return positional[index]
            return keywords.get(keyword, U)

        def run(fn: Value, inputs: list[Value]) -> Value:
            if star or not an.invoke:
                return U
            callee = fn
            if isinstance(callee, (FunctionRef, BoundMethod, PartialRef)):
                wrapped = [(None, tracerize(v, why)) for v in inputs]
                return self._call_at(context, call, callee, wrapped, level, transform.qualname)
            return U

        if name == "fori_loop":
            init = arg(3, "init_val")
            run(arg(2, "body_fun"), [Array(why, dtype="int", rank=0), init])
            return tracerize(init, why)
        if name == "while_loop":
            init = arg(2, "init_val")
            run(arg(0, "cond_fun"), [init])
            run(arg(1, "body_fun"), [init])
            return tracerize(init, why)
        if name == "scan":
            init = arg(1, "init")
            xs = arg(2, "xs")
            run(arg(0, "f"), [init, tracerize(xs, why).element() if xs is not U else U])
            return Seq("tuple", [tracerize(init, why), Value(PYTREE, why)])
        if name == "cond":
            operands = positional[3:]
            results = [run(arg(i, k), operands) for i, k in ((1, "true_fun"), (2, "false_fun"))]
            return (
                arrays(join_all(results), why)
                if all(r is not U for r in results)
                else Value(PYTREE, why)
            )
        if name == "switch":
            branches = arg(1, "branches")
            operands = positional[2:]
            if isinstance(branches, Seq) and branches.items is not None:
                for branch in branches.items:
                    run(branch, operands)
            return Value(PYTREE, why)
        if name == "map":
            xs = arg(1, "xs")
            run(arg(0, "f"), [tracerize(xs, why).element() if xs is not U else U])
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
    ) -> Value:
        """Call `callee` with `args` at `level`: a function a library function calls
        (`passer`, for messages: the lax loop or `tree_map` that passes the arguments)."""
        wrap = None
        if passer is not None:

            def wrap(name: str, given: Value) -> Value:
                if not given.traced:
                    return given
                return rewhy(given, ("body", name, passer, call, context.trace))

        if isinstance(callee, PartialRef):
            bound: Args = [(None, v) for v in callee.args]
            merged = [*bound, *args, *callee.keywords.items()]
            return self._call_at(context, call, callee.target, merged, level, passer)
        if isinstance(callee, BoundMethod):
            arguments = [(None, callee.receiver), *args]
            return self.invoke(context, call, callee.function, arguments, False, level, wrap=wrap)
        if isinstance(callee, FunctionRef):
            return self.invoke(context, call, callee, args, False, level, wrap=wrap)
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
        target = args[0][1]
        if not isinstance(target, Ref):
            return U
        rest = args[1:]
        positional = [v for k, v in rest if k is None]
        keywords = {k: v for k, v in rest if k is not None}
        return PartialRef(target, positional, keywords, star)

    def _tree_map(self, context: Context, call: cst.Call, args: Args, star: bool) -> Value:
        positional = [v for k, v in args if k is None]
        if star or len(positional) < 2:
            return U
        fn, tree, rest = positional[0], positional[1], positional[2:]
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
        if isinstance(target, BoundMethod):
            bound = [(None, target.receiver), *bound]
            target = target.function
        if not isinstance(target, FunctionRef) or star:
            return self._transformed_result(context, t, None)
        func = target.func
        level = max(context.level, transform.level)
        entry = self._entry(t, func)
        positional_bound = sum(1 for k, _ in bound if k is None)
        kinds = application_params(
            _inner_transform(t), list(t.options), func, False, positional_bound,
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
                return value if style in ("vmap", "shard", "all") else U
            # A parameter with a default is traced because this call passes it.
            why = ("passed", name, entry, call) if name in with_default else ("param", name, entry)
            if style == "filter":
                return filtered(value, why)
            return tracerize(value, why)

        all_args = [*bound, *args]
        if any(kind == STATIC for kind in kinds.values()):
            self._check_static(call, t, func, kinds, all_args, len(bound) + receiver, style)
        result = self.invoke(context, call, target, all_args, False, level, wrap=wrap, entry=entry)
        return self._transformed_result(context, t, result, all_args, func)

    def _check_static(
        self,
        call: cst.Call,
        t: Transformed,
        func: Any,
        kinds: dict[str, int],
        args: Args,
        hidden: int,
        style: str,
    ) -> None:
        """Record static arguments whose value JAX cannot hash (see `unhashable`), at the
        argument (or, for `self` or a partial's arguments, at the transformation)."""
        p = func.params
        positional = [x.name.value for x in (*p.posonly_params, *p.params)]
        spec = None
        if style == "jit":
            # jax.jit: static_argnums holds for positional arguments, static_argnames for
            # keyword ones (each inferred from the other only when it alone is given).
            spec = spec_from_args(list(_inner_options(t))).effective(Signature.of(func))
            if spec is None:
                return
        plain = all(not a.star for a in call.args)
        nodes: list[cst.CSTNode | None] = [None] * hidden
        nodes += [a.value for a in call.args] if plain else [None] * len(call.args)
        site = t.why[2] if t.why and len(t.why) > 2 else call
        index = 0
        for position, (keyword, value) in enumerate(args):
            if keyword is None:
                name = positional[index] if index < len(positional) else None
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
            self.tracing.static_events.setdefault(id(where), []).append((name, why, func, where))

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
                    aux = result.unpacked(2)
                    return Seq("tuple", [grads, _aux(aux[1], why) if aux else Value(PYTREE, why)])
                return grads
            if result is None:
                return Seq("tuple", [Value(PYTREE, why), grads])
            if has_aux:
                parts = result.unpacked(2)
                if parts is None:
                    return Seq("tuple", [Value(PYTREE, why), grads])
                out = Seq("tuple", [arrays(parts[0], why), _aux(parts[1], why)])
                return Seq("tuple", [out, grads])
            return Seq("tuple", [arrays(result, why), grads])
        if result is None or result is U:
            return Value(PYTREE, why)
        if style == "filter":
            return result
        if transform.qualname in ("jax.eval_shape", "jax.make_jaxpr"):
            return U
        return arrays(result, why)

    def _entry(self, t: Transformed, func: Any) -> Entry:
        site = t.why[2] if t.why and len(t.why) > 2 else func
        for entry in self.tracing.index.entries.get(id(func), []):
            if entry.site is site:
                return entry
        inner = _inner_transform(t)
        params = application_params(inner, list(t.options), func, False, 0, set())
        return Entry(t.transform, site, func, params, None, max(t.transform.level, inner.level))


_LAX_FLOW = frozenset({"fori_loop", "while_loop", "scan", "cond", "switch", "map"})


def _inherited(cls: ClassInfo, attr: str, after: ClassInfo | None) -> Value:
    """An attribute of an instance that the module's classes do not define: a member of
    the one base another module defines, if that is where it must be."""
    base = cls.imported_base(after)
    return Foreign(f"{base}.{attr}", "member") if base is not None else U


def _inner_options(t: Transformed) -> tuple[Any, ...]:
    inner = t
    while isinstance(inner.target, Transformed) and inner.target.target is not None:
        inner = inner.target
    return inner.options


def _inner_transform(t: Transformed) -> Transform:
    """The transformation whose options decide the parameters (the innermost)."""
    inner = t
    while isinstance(inner.target, Transformed) and inner.target.target is not None:
        inner = inner.target
    return inner.transform


def _bind_receiver(value: Transformed, receiver: Value) -> Transformed:
    """A transformed method looked up on an instance: `self` is its first argument."""
    target = value.target
    if isinstance(target, Transformed):
        target = _bind_receiver(target, receiver)
    elif isinstance(target, FunctionRef):
        return Transformed(value.transform, _SelfBound(target, receiver), value.options, value.why)
    return Transformed(value.transform, target, value.options, value.why)


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


def unhashable(value: Value, depth: int = 0) -> str | None:
    """Why JAX cannot hash `value` as a static argument (a short phrase), or None when it
    can or the model does not know."""
    if depth > 3:
        return None
    if isinstance(value, Seq):
        if value.pytype == "list":
            return "a list"
        if value.pytype == "tuple" and value.items is not None:
            for item in value.items:
                inner = unhashable(item, depth + 1)
                if inner is not None:
                    return f"a tuple containing {inner}"
        return None
    if isinstance(value, Dict):
        return "a dict"
    if isinstance(value, Array):
        return "an array"
    if type(value) is Value and value.kind == STATIC and value.pytype in ("list", "dict"):
        return f"a {value.pytype}"
    if isinstance(value, Object):
        return _unhashable_instance(value, depth)
    return None


def _unhashable_instance(obj: Object, depth: int) -> str | None:
    cls = obj.cls
    name = f"`{cls.name}`"
    framework = cls.kind
    if framework == "dataclass":
        options = cls.decorator_options
        if _flag(options, "unsafe_hash", False):
            return None
        if _flag(options, "eq", True) and not _flag(options, "frozen", False):
            return (
                f"an instance of {name}, a dataclass with `eq=True` and no `frozen=True` (its "
                "`__hash__` is None)"
            )
    if framework in ("equinox", "flax.struct", "dataclass"):
        # equinox hashes the module's leaves; a frozen dataclass (flax.struct's too) hashes
        # the tuple of its fields.
        check = _unhashable_leaf if framework == "equinox" else unhashable
        for field_name, field in obj.fields.items():
            inner = check(field, depth + 1)
            if inner is not None:
                return f"an instance of {name}, whose field `{field_name}` holds {inner}"
        return None
    if not cls.closed:
        return None
    # Python sets `__hash__ = None` in a class that defines `__eq__` but not `__hash__`.
    for owner in cls.mro:
        if "__hash__" in owner.methods:
            return None
        if "__hash__" in owner.attributes:
            expr = owner.attributes["__hash__"]
            if type(expr) is cst.Name and expr.value == "None":  # type: ignore[attr-defined]
                return f"an instance of {name}, whose `__hash__` is None"
            return None
        if "__eq__" in owner.methods:
            return f"an instance of {name}, which defines `__eq__` but not `__hash__`"
    return None


def _unhashable_leaf(value: Value, depth: int) -> str | None:
    """An unhashable leaf of a pytree (lists and dicts are nodes, not leaves)."""
    if depth > 4:
        return None
    if isinstance(value, Array):
        return "an array"
    if isinstance(value, Seq) and value.items is not None:
        return next((r for v in value.items if (r := _unhashable_leaf(v, depth + 1))), None)
    if isinstance(value, Dict) and value.entries is not None:
        return next(
            (r for v in value.entries.values() if (r := _unhashable_leaf(v, depth + 1))), None
        )
    if isinstance(value, Object) and value.cls.kind == "equinox":
        return next(
            (r for v in value.fields.values() if (r := _unhashable_leaf(v, depth + 1))), None
        )
    return None


def _flag(options: dict[str, cst.BaseExpression], name: str, default: bool) -> bool:
    expr = options.get(name)
    if expr is None:
        return default
    if type(expr) is cst.Name and expr.value in ("True", "False"):  # type: ignore[attr-defined]
        return expr.value == "True"  # type: ignore[attr-defined]
    return not default  # a computed flag: assume the safe reading


def _aux(value: Value, why: tuple[Any, ...]) -> Value:
    """The auxiliary output of a differentiated function (`has_aux=True`): returned as the
    function made it, where what the model could not follow was computed while tracing, from
    traced values (as any output of a transformed function): a pytree of tracers."""
    if isinstance(value, Seq):
        if value.items is not None:
            return Seq(value.pytype, [_aux(v, why) for v in value.items])
        return Seq(value.pytype, elem=_aux(value.elem, why))
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: _aux(v, why) for k, v in value.entries.items()})
        return Dict(elem=_aux(value.elem, why))
    if value.kind == UNKNOWN and type(value) is Value:
        return Value(PYTREE, why)
    return value


def rewhy(value: Value, why: tuple[Any, ...]) -> Value:
    """`value` with a new provenance (its structure unchanged)."""
    if isinstance(value, Array):
        return Array(why, jax=value.jax, boolean=value.boolean, dtype=value.dtype,
                     rank=value.rank, sure=value.sure)  # fmt: skip
    if type(value) is Value:
        return Value(value.kind, why, value.boolean, value.pytype)
    if isinstance(value, Seq):
        return Seq(value.pytype, value.items, value.elem, why)
    if isinstance(value, Dict):
        return Dict(value.entries, value.elem, why)
    return value


def tracerize(value: Value, why: tuple[Any, ...]) -> Value:
    """An argument as a jitted (or vmapped, or lax) function sees it: every leaf a tracer."""
    if why and why[0] in ("param", "passed") and isinstance(value, (Seq, Dict, Object)):
        # A leaf inside the argument: explained as the argument, but not the argument itself
        # (making the parameter static is no remedy for a pytree of arrays).
        inner = ("leaf", *why[1:])
        return _tracerize(value, inner, why)
    return _tracerize(value, why, why)


def _tracerize(value: Value, why: tuple[Any, ...], top: tuple[Any, ...]) -> Value:
    if isinstance(value, Array):
        return Array(why, dtype=value.dtype, rank=value.rank, boolean=value.boolean)
    if isinstance(value, Scalar):
        if value.pytype in ("int", "float", "bool", "complex"):
            return Array(why, dtype=value.pytype, rank=0, boolean=value.pytype == "bool")
        if value.pytype == "None":
            return value
        return U
    if isinstance(value, Seq):
        if value.pytype not in ("list", "tuple"):
            return U
        if value.items is not None:
            return Seq(value.pytype, [_tracerize(v, why, top) for v in value.items], why=top)
        return Seq(value.pytype, elem=_tracerize(value.elem, why, top), why=top)
    if isinstance(value, Dict):
        if value.entries is not None:
            return Dict({k: _tracerize(v, why, top) for k, v in value.entries.items()}, why=top)
        return Dict(elem=_tracerize(value.elem, why, top), why=top)
    if isinstance(value, Object):
        cls = value.cls
        if cls.registered:
            return Value(PYTREE, why)  # flattened by functions of its own
        if cls.kind not in _PYTREE_KINDS:
            return U
        declared = cls.pytree
        fields = {}
        for name, field in value.fields.items():
            static = declared is not None and declared.fields.get(name) == STATIC_FIELD
            fields[name] = field if static else _tracerize(field, why, top)
        instance = Instance(declared, "jit") if declared is not None else None
        return Object(cls, fields, kind=PYTREE, why=top, declared=instance)
    if isinstance(value, Ref):
        return U
    if value.kind == TRACED:
        return Array(why, sure=False)
    return Value(PYTREE, why)


def filtered(value: Value, why: tuple[Any, ...]) -> Value:
    """An argument as `equinox.filter_jit` sees it: arrays traced, everything else static."""
    if isinstance(value, Array):
        return Array(why, dtype=value.dtype, rank=value.rank, boolean=value.boolean)
    if isinstance(value, (Scalar, Ref)):
        return value
    if isinstance(value, Seq) and value.items is not None:
        return Seq(value.pytype, [filtered(v, why) for v in value.items])
    if isinstance(value, Dict) and value.entries is not None:
        return Dict({k: filtered(v, why) for k, v in value.entries.items()})
    if isinstance(value, Object):
        return value
    return U


def default_value(expr: cst.BaseExpression | None) -> Value:
    """A parameter's default (or a class attribute): its value when it is a literal."""
    if expr is None:
        return U
    kind = type(expr)
    if kind is cst.Integer or kind is cst.Float or kind is cst.Imaginary:
        try:
            return constant(expr.evaluated_value)  # type: ignore[attr-defined]
        except (ValueError, SyntaxError):
            return S
    if kind is cst.SimpleString:
        try:
            return constant(expr.evaluated_value)  # type: ignore[attr-defined]
        except (ValueError, SyntaxError):
            return S
    if kind is cst.Name and expr.value in ("True", "False", "None"):  # type: ignore[attr-defined]
        return constant({"True": True, "False": False, "None": None}[expr.value])  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        inner = default_value(expr.expression)  # type: ignore[attr-defined]
        if isinstance(inner, Scalar) and inner.known and isinstance(inner.const, (int, float)):
            return constant(-inner.const)
        return S
    if kind is cst.Tuple:
        return Seq("tuple", [default_value(e.value) for e in expr.elements])  # type: ignore[attr-defined]
    return S


def bind(func: Any, args: Args, star: bool, wrap: Any) -> dict[str, Value]:
    """Each parameter's value for one call of `func`: the argument it receives (through
    `wrap`), its default when left out, unknown when a `*`/`**` argument may fill it."""
    p = func.params
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    keywordable = set(positional[len(p.posonly_params) :]) | {x.name.value for x in p.kwonly_params}
    defaults = {
        x.name.value: x.default
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.default is not None
    }
    var_positional = p.star_arg.name.value if type(p.star_arg) is cst.Param else None
    var_keyword = p.star_kwarg.name.value if p.star_kwarg is not None else None
    params: dict[str, Value] = {}
    extra_positional: list[Value] = []
    extra_keywords: dict[str, Value] = {}
    index = 0
    for name, given in args:
        if name is None:
            if index < len(positional):
                params[positional[index]] = wrap(positional[index], given)
                index += 1
            else:
                extra_positional.append(given)
        elif name in keywordable and name not in params:
            params[name] = wrap(name, given)
        elif var_keyword is not None:
            extra_keywords[name] = given
    for x in (*p.posonly_params, *p.params, *p.kwonly_params):
        name = x.name.value
        if name not in params:
            params[name] = default_value(defaults[name]) if name in defaults and not star else U
    if var_positional is not None:
        params[var_positional] = (
            Seq("tuple", extra_positional) if not star else Seq("tuple", elem=U)
        )
    if var_keyword is not None:
        params[var_keyword] = Dict(extra_keywords) if not star else Dict(elem=U)
    return params


__all__ = ["MISSING", "TRANSFORMED", "Calls", "bind", "default_value", "leaf_name", "tracerize"]
