from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.jit import JitApplication, jit_arguments
from jitlint.model.jax.static_args.nonarray import NonArray, NonArrays
from jitlint.python.binding import Signature, bind_call
from jitlint.python.builtins_facts import CLASSMETHOD, STATICMETHOD
from jitlint.rules.base import Rule


class NonArrayArgNotStatic(Rule):
    """
    ## What it does
    Finds values that are not arrays reaching a parameter that `jax.jit` traces:

    - a string, lambda, function, class, enum member or instance of a plain class passed
      at a call site of a jitted function to a parameter not named in `static_argnums` /
      `static_argnames`;
    - `@jax.jit` directly on a method whose class is not a pytree: `self` is traced;
    - `@jax.jit` above `@staticmethod` or `@classmethod`.

    ## Why is this bad
    Every non-static argument is converted to an abstract array before tracing. A string, a
    function or a configuration object cannot be, so the call fails:

    ```text
    TypeError: Error interpreting argument to <function f at 0x...> as an abstract array.
    The problematic value is of type <class 'str'> and was passed to the function at path mode.
    ```

    The same happens for `self` when `@jax.jit` decorates a method. `jax.jit` applied to a
    `staticmethod` object fails when the class is defined (`TypeError: staticmethod
    arguments are not supported`), and to a `classmethod` object with `TypeError: Expected a
    callable value`. (Observed on jax 0.10.2.) `eqx.filter_jit` and `nnx.jit` make such
    values static by themselves and are never reported.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def activate(x, kind):
        return jnp.tanh(x) if kind == "tanh" else jax.nn.relu(x)


    activate(jnp.ones(3), "tanh")  # error: JIT111
    ```

    ## Use instead
    ```python
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames=("kind",))
    def activate(x, kind):
        return jnp.tanh(x) if kind == "tanh" else jax.nn.relu(x)


    activate(jnp.ones(3), "tanh")
    ```

    ## Fix safety
    For a string, a function, a class, an enum member, a NamedTuple of functions or a linen
    or haiku object passed to a function whose `jax.jit` this file applies with a literal
    spec, the fix adds the parameter to `static_argnames` (or its position to
    `static_argnums` when only those are given): these values hash (a function, a class or
    a module object by identity or by its fields). It is unsafe: each distinct value now
    compiles its own version, and a caller passing an array there would break. Instances of
    other classes and lambdas get no fix (an instance may not hash; a lambda written at the
    call is a new object, so a new compilation, per call). For
    `@jax.jit` above `@staticmethod` (adjacent) the fix swaps the two decorators; it is safe,
    because the original raises as soon as the class is defined, so no working program can
    depend on it. A bare `@jax.jit` on a method of a plain class (one defining neither
    `__eq__` nor `__hash__`) becomes `@partial(jax.jit, static_argnums=0)`: unsafe, since
    instances are then hashed by identity and attributes changed after the first call are
    not seen by the compiled code (a `partial(jax.jit, ...)` or `jax.jit(...)` with a
    literal spec gets `self` added to it, with the same caveat); registering the class as
    a pytree, or `eqx.filter_jit` / `nnx.jit`, are the alternatives.

    ## Known problems
    Call sites are resolved only through names bound once to a jitted function in the same
    file, or imported from a file of the run that jits it with a decorator (`f(...)`, not
    `self.f(...)` or `module.f(...)`), and only values whose kind is visible are reported:
    literals, lambdas, names bound once to a `def`, `class`, lambda, string or instance,
    members of local `Enum` classes, instances of local classes that are not pytrees, of
    flax linen or haiku modules (defined here or in another file of the run; also through
    `self.attr` when the class assigns it once, plainly), and functions of `jax.numpy`,
    `jax.nn`, `jax.lax`, `math` and `operator`.
    A method is reported only when its class is visibly not a pytree: no base other than
    `object`/`ABC` or other such local classes, no decorator but `dataclasses.dataclass`, no
    `tree_flatten`, and no registration call naming it.
    """

    code = "JIT111"
    name = "non-array-arg-not-static"
    summary = "A string, callable, config object or `self` reaches a traced parameter of jit."
    fix_availability = "sometimes"
    requires = ("jit",)
    runtime_error = "as an abstract array"

    VALID = (
        # The attribute is assigned twice: what it holds at the call is not known.
        """
import flax.linen as nn
import jax
class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(x)
@jax.jit
def step(params, x, model):
    return model.apply(params, x)
class Trainer:
    def __init__(self, fn):
        self.model = Model()
        if fn is not None:
            self.model = fn
    def update(self, params, x):
        return step(params, x, self.model)
""",
        # The string goes to a static parameter.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="mode")
def f(x, mode):
    return x
f(x, "train")
f(x, mode="eval")
""",
        # static_argnums alone: JAX infers the name, so the keyword is static too.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnums=1)
def f(x, mode):
    return x
f(x, mode="train")
""",
        # Numbers, booleans, None and tuples of them are valid traced arguments.
        """
import jax
@jax.jit
def f(x, scale, flag, extra):
    return x
f(x, 2.0, True, None)
""",
        # eqx.filter_jit makes non-array leaves static.
        """
import equinox as eqx
@eqx.filter_jit
def f(x, fn):
    return fn(x)
f(x, lambda y: y)
""",
        # A method of a class registered as a pytree.
        """
import jax
import dataclasses
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    w: jax.Array
    @jax.jit
    def apply(self, x):
        return self.w * x
""",
        # flax and equinox modules are pytrees (or their bases are unknown): not reported.
        """
import jax
import equinox as eqx
class Model(eqx.Module):
    w: jax.Array
    @jax.jit
    def __call__(self, x):
        return self.w * x
""",
        # self marked static.
        """
import jax
from functools import partial
class Model:
    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x
""",
        # staticmethod applied after jit: the right order.
        """
import jax
class Ops:
    @staticmethod
    @jax.jit
    def double(x):
        return 2 * x
""",
        # A non-literal static spec: unknown, so silent.
        """
import jax
from functools import partial
STATIC = ("mode",)
@partial(jax.jit, static_argnames=STATIC)
def f(x, mode):
    return x
f(x, "train")
""",
        # Another decorator hides the signature, and the spec names `mode`.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="mode")
@wraps_something
def f(x, mode):
    return x
f(x, "train")
""",
        # A decorated function may be a pytree (equinox's filter_jit returns a Module).
        """
import jax
import equinox as eqx
@eqx.filter_jit
def inner(x):
    return x
@jax.jit
def outer(x, fn):
    return fn(x)
outer(x, inner)
""",
        # An IntEnum member is an int: traced fine.
        """
import enum
import jax
class Axis(enum.IntEnum):
    ROWS = 0
@jax.jit
def f(x, axis):
    return x
f(x, Axis.ROWS)
""",
        # The name `f` is rebound locally.
        """
import jax
@jax.jit
def f(x, mode):
    return x
def g(f):
    return f(1.0, "train")
""",
    )
    INVALID = (
        # A linen module kept on self reaches a traced parameter.
        """
import flax.linen as nn
import jax
class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(x)
@jax.jit
def step(params, x, model):
    return model.apply(params, x)
class Trainer:
    def __init__(self):
        self.model = Model()
    def update(self, params, x):
        return step(params, x, self.model)  # error: JIT111
""",
        """
import jax
@jax.jit
def f(x, mode):
    return x
f(x, "train")  # error: JIT111
""",
        """
import jax
def loss(params, batch, activation):
    return params
fast = jax.jit(loss, static_argnums=(1,))
fast(p, b, lambda y: y)  # error: JIT111
""",
        """
import jax
import jax.numpy as jnp
from functools import partial
@partial(jax.jit, static_argnames=("n",))
def f(x, n, op):
    return op(x)
f(x, n=2, op=jnp.tanh)  # error: JIT111
""",
        """
import enum
import jax
class Mode(enum.Enum):
    TRAIN = 1
@jax.jit
def f(x, mode):
    return x
f(x, Mode.TRAIN)  # error: JIT111
""",
        """
import jax
from dataclasses import dataclass
@dataclass
class Config:
    depth: int = 2
@jax.jit
def f(x, cfg):
    return x
f(x, Config())  # error: JIT111
""",
        """
import jax
class Model:
    def __init__(self, w):
        self.w = w
    @jax.jit  # error: JIT111
    def apply(self, x):
        return self.w * x
""",
        """
import jax
class Ops:
    @jax.jit  # error: JIT111
    @staticmethod
    def double(x):
        return 2 * x
""",
        """
import jax
jax.jit(lambda x, name: x)(1.0, "a")  # error: JIT111
""",
    )

    @cached_property
    def values(self) -> NonArrays:
        ctx = self.ctx
        return NonArrays(ctx.names, ctx.jit, ctx.tracing, ctx.module, ctx.source)

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args:
            return
        if type(node.func) not in (cst.Name, cst.Call):
            self._modelled(node, None)
            return  # cheap pre-test before building the path
        path = self.ctx.path_to(node)
        found = self.ctx.jit.static_call(node, path)
        self._modelled(node, None if found is None else (found[0], path))
        if found is None:
            return
        app, nums, names = found
        for argument in jit_arguments(app, nums, names, node):
            if argument.static is not False:
                continue
            arg, param = argument.arg, argument.param
            found = self.values.of(arg.value, path)
            if found is None:
                continue
            kind = _described(found)
            label = f"`{param}`" if param else f"argument {argument.index}"
            where = f" (jitted in {app.origin})" if app.origin else ""
            fix = None
            if param and found.hashable:
                fix = self._static_fix(app, param, path)
            self.report(
                arg.value,
                f"{label} of `{app.func_name}`{where} is traced by jax.jit, but this call passes "
                f"{kind}, which is not an array (TypeError: Error interpreting argument ... "
                "as an abstract array)",
                help=f"mark {label} static with `static_argnames` (the value must be hashable), "
                "or pass arrays only",
                fix=fix,
            )

    def _modelled(
        self, node: cst.Call, jitted: tuple[JitApplication, Sequence[cst.CSTNode]] | None
    ) -> None:
        """Framework objects the tracing model saw this call pass to a traced parameter of
        a jitted function: a linen or haiku Module, an `hk.transform` pair. `jitted`: the
        jit application this call calls in this file and the call's path, when known."""
        tracing = self.ctx.tracing
        if not tracing.active:
            return
        tracing.solve()
        events = tracing.nonarray_events.get(id(node))
        if not events:
            return
        seen: set[str] = set()
        for param, why, func, _ in events:
            if param in seen or type(func) is not cst.FunctionDef:
                continue
            seen.add(param)
            target = _argument_for(node, func, param) or node
            fix = None
            if jitted is not None and jitted[0].func is func:
                fix = self._static_fix(jitted[0], param, jitted[1])
            self.report(
                target,
                f"`{param}` of `{func.name.value}` is traced by jax.jit, but this call passes "
                f"{why}, which is not a pytree of arrays (TypeError: Error interpreting "
                "argument ... as an abstract array)",
                help=f"close over it instead of passing it, or mark `{param}` static with "
                "`static_argnames` (it is hashed by identity)",
                fix=fix,
            )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not node.decorators:
            return
        path = self.ctx.path_to(node)
        if len(path) < 3 or not isinstance(path[-3], cst.ClassDef):
            return
        app = self.ctx.jit.from_decorators(node, path)
        if app is None:
            return
        cls = path[-3]
        index = next(i for i, d in enumerate(node.decorators) if d.decorator is app.node)
        below = node.decorators[index + 1 :]
        for position, decorator in enumerate(below):
            kinds = self.ctx.names.qualified_names(decorator.decorator, path)
            if kinds and kinds <= STATICMETHOD:
                fix = None
                if position == 0:
                    fix = NodeFix(
                        "safe",
                        "apply `staticmethod` after `jax.jit`",
                        (
                            (app.node, self.ctx.module.code_for_node(decorator.decorator)),
                            (decorator.decorator, self.ctx.module.code_for_node(app.node)),
                        ),
                    )
                self.report(
                    app.node,
                    f"`jax.jit` is applied to the staticmethod object of `{node.name.value}`: "
                    "it raises TypeError (staticmethod arguments are not supported) when "
                    f"`{cls.name.value}` is defined",
                    help="put `@staticmethod` above `@jax.jit`",
                    fix=fix,
                )
                return
            if kinds and kinds <= CLASSMETHOD:
                self.report(
                    app.node,
                    f"`jax.jit` is applied to the classmethod object of `{node.name.value}`: "
                    f"it raises TypeError (Expected a callable value) when `{cls.name.value}` "
                    "is defined",
                    help="put `@classmethod` above `@partial(jax.jit, static_argnums=0)`: the "
                    "class itself is not an array",
                )
                return
        sig = app.signature
        if sig is None or not sig.positional or sig.positional[0] != "self":
            return
        static = app.spec.effective(sig)
        if static is None or 0 in static[0] or "self" in static[1]:
            return
        if not self.values.plain_class(cls, path[:-2]):
            return
        fix = self._static_self_fix(app, cls)
        self.report(
            app.node,
            f"`jax.jit` on the method `{node.name.value}` traces `self`, but "
            f"`{cls.name.value}` is not a pytree: calls fail with TypeError (Error "
            "interpreting argument ... as an abstract array)",
            help="jit a function of arrays; or register the class as a pytree; or mark self "
            "static with `partial(jax.jit, static_argnums=0)` if instances are hashable and "
            "immutable; or use `eqx.filter_jit` / `nnx.jit`",
            fix=fix,
        )

    # -- the fix ---------------------------------------------------------------------------

    def _static_self_fix(self, app: JitApplication, cls: cst.ClassDef) -> NodeFix | None:
        """`@jax.jit` on a method -> `@partial(jax.jit, static_argnums=0)`: `self` is then
        hashed (by identity, for a class without `__eq__`) instead of traced. Unsafe: the
        compiled code keeps the attribute values of the first trace per instance."""
        node = app.node
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        if any(
            isinstance(s, cst.FunctionDef) and s.name.value in ("__eq__", "__hash__") for s in body
        ):
            return None  # hashing is the class's own: it may be unhashable or by value
        if type(node) is cst.Call:  # `partial(jax.jit, static_argnums=(1,))`: `self` joins
            from jitlint.fixes.static_fix import with_static_name

            text = with_static_name(self.ctx.module, node, "self", 0)
            return NodeFix("unsafe", _STATIC_SELF, ((node, text),)) if text else None
        if not isinstance(node, cst.Name | cst.Attribute):
            return None
        partial, imported = self.ctx.import_name("functools.partial", "partial")
        text = f"{partial}({self.ctx.module.code_for_node(node)}, static_argnums=0)"
        return NodeFix(
            "unsafe",
            _STATIC_SELF,
            ((node, text),),
            (imported,) if imported else (),
        )

    def _static_fix(
        self, app: JitApplication, param: str, path: Sequence[cst.CSTNode]
    ) -> NodeFix | None:
        sig = app.signature
        if sig is None or app.spec.effective(sig) is None or app.origin is not None:
            return None  # (a jit applied in another file is not edited from here)
        spec = app.spec
        message = f"make `{param}` static"
        if spec.argnames_arg is not None and spec.argnums_arg is not None:
            return None
        if spec.argnums_arg is not None:
            # Adding static_argnames would stop JAX inferring names from the numbers.
            if param not in sig.positional or spec.argnums is None:
                return None
            numbers = (*spec.argnums, sig.positional.index(param))
            return NodeFix(
                "unsafe",
                message,
                ((spec.argnums_arg.value, _tuple_text(map(str, numbers))),),
            )
        if spec.argnames_arg is not None:
            if spec.argnames is None or not sig.accepts_keyword(param):
                return None
            names = (*spec.argnames, param)
            return NodeFix(
                "unsafe",
                message,
                ((spec.argnames_arg.value, _tuple_text(f'"{n}"' for n in names)),),
            )
        if not sig.accepts_keyword(param):
            return None
        quoted = f'"{param}"'
        keyword = f"static_argnames={_tuple_text([quoted])}"
        node = app.node
        if isinstance(node, cst.Call):  # jax.jit(f) or jax.jit(f, donate_argnums=...)
            text = self.ctx.module.code_for_node(node)
            if not text.endswith(")") or "#" in text:
                return None
            inner = text[:-1].rstrip()
            separator = " " if inner.endswith(",") else ", "
            return NodeFix("unsafe", message, ((node, f"{inner}{separator}{keyword})"),))
        if isinstance(node, cst.Name | cst.Attribute):  # bare @jax.jit
            text = self.ctx.module.code_for_node(node)
            return NodeFix("unsafe", message, ((node, f"{text}({keyword})"),))
        return None


_STATIC_SELF = (
    "mark `self` static (`static_argnums=0`): instances are hashed by identity, so "
    "attributes changed after the first call are not seen by the compiled code"
)


def _tuple_text(items: object) -> str:
    parts = list(items)  # type: ignore[call-overload]
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


def _argument_for(call: cst.Call, func: cst.FunctionDef, param: str) -> cst.CSTNode | None:
    """The argument expression of `call` that `param` of `func` receives, when known."""
    return bind_call(Signature.of(func), call).arguments.get(param)


_DESCRIPTIONS = {
    "string": "a string",
    "lambda": "a lambda",
    "function": "the function `{name}`",
    "class": "the class `{name}`",
    "library function": "`{name}`, a function or dtype",
    "enum member": "a member of the enum `{name}`",
    "instance": "a `{name}` instance",
    "module instance": "an instance of the {name}",
    "record of functions": "a `{name}` whose fields are functions",
}


def _described(value: NonArray) -> str:
    """The value as the message names it (`mode`, a string)."""
    text = _DESCRIPTIONS[value.kind].format(name=value.name)
    return f"`{value.via}`, {text}" if value.via else text
