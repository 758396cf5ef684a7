from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.classes import ClassInfo
from jitlint.model.domain.hashing import unfrozen_dataclass, unhashable
from jitlint.model.domain.values import Object, Value
from jitlint.model.jax.crossfile.returned import ForeignFunction
from jitlint.model.jax.frameworks.equinox import ArrayHolder, static_array_fields
from jitlint.model.jax.jit import JitApplication, jit_arguments
from jitlint.model.jax.static_args.hashable import (
    Unhashable,
    declared_unhashable,
    unhashable_expression,
)
from jitlint.rules.base import Option, Rule


def _function_label(func: object) -> str:
    """`step`; for a function jitted in another file, also the function that returns it."""
    if isinstance(func, ForeignFunction):
        return f"`{func.func.name.value}`, which {func.origin} returns jitted"
    return f"`{func.name.value}`" if type(func) is cst.FunctionDef else "`<lambda>`"  # type: ignore[attr-defined]


class UnhashableStaticArg(Rule):
    """
    ## What it does
    Finds a list, dict, set or array passed to a parameter that `jax.jit` treats as static
    (named in `static_argnums` or `static_argnames`), also when only one side of a
    conditional gives it (`kwargs if c else {}`, `opts or {}`): the call fails on that path.

    ## Why is this bad
    JAX hashes every static argument to find the compiled function in its cache. Lists,
    dicts, sets and arrays cannot be hashed, so the call fails before anything is traced:

    ```text
    ValueError: Non-hashable static arguments are not supported. An error occurred while
    trying to hash an object of type <class 'list'>, [0, 1]. The error was:
    TypeError: unhashable type: 'list'
    ```

    ## Example
    ```python
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames="axes")
    def total(x, axes):
        return x.sum(axis=axes)


    total(jnp.ones((2, 3)), axes=[0, 1])  # error: JIT110
    ```

    ## Use instead
    ```python
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames="axes")
    def total(x, axes):
        return x.sum(axis=axes)


    total(jnp.ones((2, 3)), axes=(0, 1))
    ```

    ## Fix safety
    A literal list becomes a tuple of the same elements: a safe fix, since the call failed on
    every input before and the function can still iterate and index the value. A name bound
    only to lists is wrapped in `tuple(...)`: unsafe, because elements that are themselves
    unhashable (nested lists) would still fail, and code that relied on mutating the value
    changes. Dicts and sets get no fix: their hashable replacements depend on how the
    function uses them. An array passed to a static parameter of a function this file
    decorates with a literal spec takes the parameter out of `static_argnums` or
    `static_argnames` (the keyword goes when nothing is left): unsafe, since Python control
    flow on that parameter then sees a tracer. A tracer passed to a static parameter because
    it is a parameter of an enclosing `jax.jit` this file applies has that parameter made
    static there too (`static_argnames`): unsafe, the outer function then compiles once per
    value, and its callers must pass a hashable Python value. An instance of a dataclass of
    this file with `eq=True` and no `frozen=True` gets `frozen=True` on the class's
    decorator: unsafe, assigning to a field of an instance then raises
    FrozenInstanceError. Where a field holds an array (which a field hash cannot take), it
    gets `eq=False` instead: unsafe, instances then hash and compare by identity, and the
    compiled code keeps the fields of the first trace. `@partial(jax.jit, static_argnums=0)`
    (or `static_argnames="self"`) on a method of an equinox module holding arrays becomes
    `@eqx.filter_jit`, which traces the module's arrays and keeps its other fields static:
    unsafe, the method's Python-valued arguments become static too (one compilation per
    value). An array field declared static loses the flag (`eqx.field(static=True)` ->
    `eqx.field()`, `pytree_node=False` likewise): unsafe, the array is then a leaf that
    `grad`, tree maps and partition filters see.

    ## Known problems
    Only values whose type is visible in the file are checked: list, dict and set displays
    and comprehensions, `list()`/`dict()`/`set()`/`bytearray()` calls, NumPy and `jax.numpy`
    array constructors, tuples containing any of those, and names bound only to such values;
    and what the tracing model follows to the call: instances of the file's classes that
    cannot be hashed (a dataclass with `eq=True` and no `frozen=True`, a class defining
    `__eq__` without `__hash__`, an equinox module or frozen dataclass holding arrays),
    including `self` of a method jitted with `self` static and an instance given to
    `jax.jit` itself. Classes of other files are not modelled.
    A list as the default value of a static parameter is not reported: JAX does not hash
    defaults that the caller leaves out (observed on jax 0.10.2). A static parameter
    annotated as a list, dict or set is reported from the annotation alone, except when the
    decorated function is only handed on as a value in its module (returned to a
    dispatcher, stored in a table) and never called there: the code that calls it decides
    what it passes, and `list[int]` is often written for any sequence.

    ## Options
    - `unhashable-calls` (list of dotted names, default `[]`): further callables whose
      results are unhashable, e.g. `["mylib.make_config"]`.
    """

    code = "JIT110"
    name = "unhashable-static-arg"
    summary = "An unhashable value is passed to a static argument of a jitted function."
    fix_availability = "sometimes"
    requires = ("jit",)
    runtime_error = "Non-hashable static arguments are not supported"
    options = {
        "unhashable-calls": Option(list, [], "dotted names of callables returning unhashables")
    }

    VALID = (
        # `and` gives its right side only when the left is truthy; both sides hash here.
        """
from functools import partial
import jax
@partial(jax.jit, static_argnums=1)
def f(x, kwargs):
    return x
def main(x, opts, c):
    f(x, opts and {})
    return f(x, (1,) if c else ())
""",
        # `eq=False` leaves a dataclass hashed by identity, whatever its fields hold.
        """
import dataclasses
import jax
import jax.numpy as jnp
@dataclasses.dataclass(eq=False)
class Shift:
    offset: jax.Array
    def __call__(self, x):
        return x + self.offset
half = Shift(jnp.ones(3))
jax.jit(half)(jnp.zeros(3))
""",
        # A frozen dataclass and a plain object (hashed by identity) are hashable.
        """
import dataclasses
from functools import partial
import jax
@dataclasses.dataclass(frozen=True)
class Config:
    scale: float
class Plain:
    scale = 2.0
@partial(jax.jit, static_argnums=1)
def f(x, config):
    return x * config.scale
f(1.0, Config(2.0))
f(1.0, Plain())
""",
        # A tuple is hashable.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnums=1)
def f(x, dims):
    return x.sum(dims)
f(x, (0, 1))
""",
        # The list goes to a traced parameter: a pytree, which is fine.
        """
import jax
@jax.jit
def f(x, dims):
    return x
f(x, [0, 1])
""",
        # Both argnums and argnames given: JAX infers nothing, so `dims` by keyword is traced.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnums=1, static_argnames="other")
def f(x, dims, other=None):
    return x
f(x, dims=[0, 1])
""",
        # A list default is never hashed.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="dims")
def f(x, dims=[0]):
    return x
f(x)
""",
        # The name is rebound to a tuple before the call.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="dims")
def f(x, dims):
    return x
def g(x):
    dims = [0, 1]
    dims = tuple(dims)
    return f(x, dims=dims)
""",
        # `jit` here is not jax's.
        """
from numba import jit
@jit(static_argnums=1)
def f(x, dims):
    return x
f(x, [0, 1])
""",
        # A local name shadows the jitted function.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnums=1)
def f(x, dims):
    return x
def g(f, x):
    return f(x, [1])
""",
    )
    INVALID = (
        # One side of the conditional is a dict: the call fails when `c` is false.
        """
from functools import partial
import jax
@partial(jax.jit, static_argnums=1)
def f(x, kwargs):
    return x
def main(x, config, c):
    kwargs = config.to_dict() if c else {}
    return f(x, kwargs)  # error: JIT110
""",
        # The model follows the instance through an attribute of another object.
        """
import dataclasses
from functools import partial
import jax
@dataclasses.dataclass
class Config:
    scale: float
@partial(jax.jit, static_argnums=1)
def f(x, config):
    return x * config.scale
class Runner:
    def __init__(self, config):
        self.config = config
    def run(self, x):
        return f(x, self.config)  # error: JIT110
Runner(Config(2.0)).run(1.0)
""",
        """
import jax
from functools import partial
@partial(jax.jit, static_argnums=(1,))
def f(x, dims):
    return x.sum(dims)
f(x, [0, 1])  # error: JIT110
""",
        """
import jax
def f(x, table):
    return x
g = jax.jit(f, static_argnames=["table"])
g(x, table={"a": 1})  # error: JIT110
""",
        """
import jax
import numpy as np
from jax import jit
@jit(static_argnames="shape")
def f(x, shape):
    return x
def run(x):
    shape = np.array([2, 3])
    return f(x, shape=shape)  # error: JIT110
""",
        """
import jax
jax.jit(lambda x, s: x, static_argnums=1)(1.0, {1, 2})  # error: JIT110
""",
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="dims")
def f(x, dims):
    return x
f(x, ([0], 1))  # error: JIT110
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._literal(node):
            self._modelled(node)
        if node.args and type(node.func) in (cst.Name, cst.Attribute):
            app = self.ctx.jit.from_call(node, self.ctx.path_to(node))
            if app is not None:
                self._declared(app, self.ctx.path_to(node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == "tree_flatten":
            self._aux_arrays(node)
        if node.decorators:
            path = self.ctx.path_to(node)
            app = self.ctx.jit.from_decorators(node, path)
            if app is not None:
                self._declared(app, path, decorated=True)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not node.body or type(node.body) is not cst.IndentedBlock:
            return
        tracing = self.ctx.tracing
        info = tracing.classes.of(node, self.ctx.path_to(node)[:-1])
        for name, declaration in static_array_fields(tracing.classes, info):
            from jitlint.fixes.framework_modules import unflag_static_field_fix

            self.report(
                declaration,
                f"field `{name}` of `{info.name}` is declared static but holds a JAX array: "
                "static fields are the pytree's auxiliary data, which jit hashes and compares "
                "with `==` on every call, and an array is not hashable and its `==` has no "
                "single truth value (ValueError)",
                help="leave the field a leaf (a traced array), or store a hashable Python "
                "value (a tuple) in it",
                fix=unflag_static_field_fix(self.ctx, declaration, name),
            )

    def _aux_arrays(self, node: cst.FunctionDef) -> None:
        tracing = self.ctx.tracing
        if not tracing.active:
            return
        tracing.solve()
        events = tracing.aux_events.get(id(node), [])
        # The first call only stores the treedef; a later one compares against it.
        calls = sorted({tracing.line(e[3]) or 0 for e in events})
        if len(calls) < 2:
            return
        for attr, cls, aux_node, _ in events[:1]:
            self.report(
                aux_node,
                f"`{attr}` is aux data of `{cls}` (static), but the instances jit receives at "
                f"lines {calls[0]} and {calls[1]} hold arrays there: jit compares the aux data "
                "of each call with `==` against its cache, and an array's `==` has no single "
                "truth value (ValueError)",
                help="return the array among the children (traced), or store a hashable value "
                "(a tuple, a Python number) as aux data",
            )

    def _declared(
        self, app: JitApplication, path: Sequence[cst.CSTNode], decorated: bool = False
    ) -> None:
        """Static parameters whose declaration says every call passes an unhashable value:
        an annotation `list[...]`/`dict`/`set`, or `self` of a method of an equinox module
        holding arrays."""
        found = declared_unhashable(self.ctx.names, self.ctx.tracing.classes, app, path, decorated)
        spec_arg = app.spec.argnames_arg or app.spec.argnums_arg
        anchor = spec_arg.value if spec_arg is not None else app.node
        for declared in found:
            name, cls, holder = declared.param, declared.cls, declared.holder
            if cls is not None and holder is not None:
                self._static_self(app, anchor, name, cls, holder)
                continue
            kind = _article(declared.annotated)
            self.report(
                anchor,
                f"`{name}` is a static argument of `{app.func_name}`, but it is "
                f"annotated as {kind}: JAX hashes every static argument, and {kind} "
                "cannot be hashed (ValueError: Non-hashable static arguments are not "
                "supported)",
                help="pass a tuple (or a frozenset, a frozen dataclass) and annotate it "
                "so, or make the argument traced",
            )

    def _static_self(
        self,
        app: JitApplication,
        anchor: cst.CSTNode,
        name: str,
        cls: ClassInfo,
        found: ArrayHolder,
    ) -> None:
        fname = app.func_name
        if found.certain:
            what = f"`{cls.name}` is an `eqx.Module`"
        else:
            bases = ", ".join(f"`{b.rsplit('.', 1)[-1]}`" for b in cls.imported_bases)
            what = f"`{cls.name}` declares its fields like an `eqx.Module` (through {bases})"
        from jitlint.fixes.framework_modules import filter_jit_fix

        self.report(
            anchor,
            f"`{name}` is a static argument of `{fname}`, so JAX hashes it on every call; "
            f"{what}, which hashes its fields, and field `{found.field}` holds {found.holds}, "
            "which cannot be hashed (ValueError: Non-hashable static arguments are not "
            "supported)",
            help="drop `self` from the static arguments and let the module be a traced pytree "
            "(`eqx.filter_jit`, or `jax.jit` of a function taking the module)",
            severity=None if found.certain else "warning",
            fix=filter_jit_fix(self.ctx, app) if name == "self" else None,
        )

    def _modelled(self, node: cst.Call) -> None:
        """Static arguments the tracing model saw a call pass, whatever their spelling:
        `self.config` holding a dataclass instance, `self` of a jitted method, a jitted
        callable object."""
        tracing = self.ctx.tracing
        if not tracing.active:
            return
        tracing.solve()
        events = tracing.static_events
        if not events:
            return
        seen: set[tuple[str, int]] = set()
        for where in (node, *(a.value for a in node.args)):
            for param, why, func, target, value in events.get(id(where), ()):
                key = (param, id(target))
                if key in seen:
                    continue
                seen.add(key)
                if func is None:
                    message = (
                        f"`jax.jit` keys its compilation cache on the function it compiles, "
                        f"but this is {why}, which JAX cannot hash (ValueError: Non-hashable "
                        "static arguments are not supported)"
                    )
                else:
                    passes = "this call passes" if target is not node else "it receives"
                    message = (
                        f"`{param}` is a static argument of {_function_label(func)}, but "
                        f"{passes} {why}, "
                        "which JAX cannot hash (ValueError: Non-hashable static arguments "
                        "are not supported)"
                    )
                self.report(
                    target,
                    message,
                    help="pass a hashable, immutable value (a tuple, a frozen dataclass), or "
                    "make the argument traced",
                    fix=self._value_fix(value, param, func),
                )

    def _value_fix(self, value: Value, param: str, func: object) -> NodeFix | None:
        """An unfrozen dataclass of this file gets `frozen=True`; a tracer that is a
        parameter of an enclosing `jax.jit` has that parameter made static there, and
        another array makes the parameter of this file's decorator traced again."""
        if value.traced:
            from jitlint.fixes.static_fix import static_argname_fix

            fix = static_argname_fix(self.ctx, value)
            if fix is not None or type(func) is not cst.FunctionDef:
                return fix
            return self._made_traced(
                self.ctx.jit.from_decorators(func, self.ctx.path_to(func)), param
            )
        name = unfrozen_dataclass(value)
        if name is None or not isinstance(value, Object):
            return None
        # A field JAX cannot hash (an array) defeats a field hash: identity then.
        by_identity = any(unhashable(field) is not None for field in value.fields.values())
        from jitlint.fixes.static_fix import frozen_dataclass_fix

        return frozen_dataclass_fix(self.ctx, name, by_identity)

    def _made_traced(self, app: JitApplication | None, param: str | None) -> NodeFix | None:
        """The fix making `param`, which receives an array, a traced parameter of `app`."""
        if app is None or app.signature is None or param is None or app.origin is not None:
            return None  # (a jit applied in another file is not edited from here)
        positional = app.signature.positional
        position = positional.index(param) if param in positional else None
        from jitlint.fixes.static_fix import without_static_fix

        return without_static_fix(self.ctx.module, app.node, app.spec, param, position)

    def _literal(self, node: cst.Call) -> bool:
        """The values the call's own text shows to be unhashable; True if any was reported."""
        if type(node.func) not in (cst.Name, cst.Call):
            return False  # cheap pre-test before building the path
        path = self.ctx.path_to(node)
        found = self.ctx.jit.static_call(node, path)
        if found is None or not (found[1] or found[2]):
            return False
        app, nums, names = found
        reported = False
        for argument in jit_arguments(app, nums, names, node):
            if not argument.static:
                continue
            arg, param = argument.arg, argument.param
            found = unhashable_expression(
                self.ctx.names, arg.value, path, self.settings["unhashable-calls"]
            )
            if found is not None:
                kind = _described(found)
                reported = True
                label = f"`{param}`" if param else f"argument {argument.index}"
                self.report(
                    arg.value,
                    f"{label} is a static argument of `{app.func_name}`{_jitted_in(app)}, but "
                    "this call passes "
                    f"{kind}, which JAX cannot hash (ValueError: Non-hashable static arguments "
                    "are not supported)",
                    help="pass a tuple or another hashable, immutable value",
                    fix=self._fix(arg.value, found)
                    or (self._made_traced(app, param) if found.kind == "array" else None),
                )
        return reported

    def _fix(self, value: cst.BaseExpression, found: Unhashable) -> NodeFix | None:
        if type(value) is cst.List and not value.lpar:
            elements = list(value.elements)
            if len(elements) == 1 and elements[0].comma == cst.MaybeSentinel.DEFAULT:
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            as_tuple = cst.Tuple(
                elements=elements,
                lpar=[cst.LeftParen(whitespace_after=value.lbracket.whitespace_after)],
                rpar=[cst.RightParen(whitespace_before=value.rbracket.whitespace_before)],
            )
            # The call failed on every input before, so any working behaviour is an
            # improvement; a tuple holds the same elements in the same order.
            return NodeFix(
                "safe",
                "Replace the list with a tuple",
                ((value, self.ctx.module.code_for_node(as_tuple)),),
            )
        if (
            type(value) is cst.Name
            and found.kind == "list"
            and None not in found.route
            and found.when is None  # `tuple()` would also change the other side's value
        ):
            return NodeFix(
                "unsafe",
                f"Pass `tuple({value.value})`",
                ((value, f"tuple({value.value})"),),
            )
        return None


def _jitted_in(app: JitApplication) -> str:
    """` (jitted in pkg/steps.py:12)` for a jit another file of the run applies."""
    return f" (jitted in {app.origin})" if app.origin else ""


def _article(kind: str | None) -> str | None:
    return None if kind is None else f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _described(found: Unhashable) -> str:
    """`cfg`, a tuple containing a list."""
    text = "an unhashable value" if found.kind == "value" else _article(found.kind)
    for step in reversed(found.route):
        text = f"a tuple containing {text}" if step is None else f"`{step}`, {text}"
    if found.when is not None:
        text = f"{text} when {found.when}"
    return text  # type: ignore[return-value]
