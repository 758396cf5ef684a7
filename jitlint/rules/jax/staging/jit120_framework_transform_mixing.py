from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.plugins import FrameworkPlugin, plugin, plugins
from jitlint.model.jax.api import LAX_SCAN
from jitlint.model.jax.frameworks.lifting import STAGING, ModuleUse
from jitlint.rules.base import Rule

_STAGING_LEAVES = frozenset(name.rpartition(".")[2] for name in STAGING)


def _framework(kind: str) -> FrameworkPlugin:
    found = plugin(kind)
    assert found is not None  # a ModuleUse's kind is a lifting plug-in's
    return found


class FrameworkTransformMixing(Rule):
    """
    ## What it does
    Finds a raw JAX transformation that stages its function out — `jax.lax.scan`, `map`,
    `fori_loop`, `while_loop`, `cond`, `switch`, `jax.checkpoint`/`remat` or `jax.jit` —
    whose function is, or calls, a flax linen or haiku module: a module made with a class
    of the framework or of the file (`hk.Linear(4)`, `self.cell` set in `setup`), a bound
    method of the module that calls one (`jax.lax.scan(self.step, ...)`), or a
    parameter read (`self.param`, `hk.get_parameter`).

    ## Why is this bad
    The module creates its parameters the first time it runs, at `init`. Inside a staged
    transformation every value is a tracer of that transformation's trace, and the
    framework stores the new parameters outside it: `init` returns leaked tracers, and the
    first use of them fails:

    ```text
    jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function
    transformed by JAX had a side effect, allowing for a reference to an intermediate value
    with type float32[4,4] wrapped in a DynamicJaxprTracer to escape the scope of the
    transformation.
    ```

    A linen module passed to `jax.jit`, `jax.checkpoint` or `lax.cond` itself fails sooner
    (`Can't call __hash__ on modules that hold variables`). Older flax raised
    `JaxTransformError: Jax transforms and Flax models cannot be mixed`. `jax.vmap` and
    `jax.grad` do not stage their function out and work (jax 0.10.2, flax 0.12.8,
    dm-haiku 0.0.17); they are not reported.

    ## Example
    ```python
    import haiku as hk
    import jax
    import jax.numpy as jnp


    def forward(xs):
        cell = hk.Linear(4)
        _, ys = jax.lax.scan(lambda c, x: (c, cell(x)), 0.0, xs)  # error: JIT120
        return ys


    model = hk.transform(forward)
    xs = jnp.ones((3, 4))
    params = model.init(jax.random.PRNGKey(0), xs)
    model.apply(params, None, xs)
    ```

    ## Use instead
    ```python
    import haiku as hk
    import jax
    import jax.numpy as jnp


    def forward(xs):
        cell = hk.Linear(4)
        _, ys = hk.scan(lambda c, x: (c, cell(x)), 0.0, xs)
        return ys


    model = hk.transform(forward)
    xs = jnp.ones((3, 4))
    params = model.init(jax.random.PRNGKey(0), xs)
    model.apply(params, None, xs)
    ```

    The framework's lifted transformations thread the parameters through the trace:
    haiku's `hk.scan`, `hk.map`, `hk.fori_loop`, `hk.remat` (and `hk.cond`/`hk.switch`
    when every branch creates the same parameters); linen's `nn.scan`, `nn.remat`,
    `nn.jit`, `nn.cond`, `nn.switch`, `nn.while_loop`, which lift a Module class and say
    which variable collections to broadcast or split. Calling the module once before the
    loop also works: its parameters then exist, and the loop only reads them.

    ## Fix safety
    Under haiku, where the module is made before the transformation, `jax.lax.scan`,
    `jax.lax.map` and `jax.lax.fori_loop` become `hk.scan`, `hk.map` and `hk.fori_loop`, and
    `jax.checkpoint`/`jax.remat` become `hk.remat`, when the call passes only keywords the
    twin takes. They take the same arguments. Unsafe: haiku's versions also thread haiku's
    state and random keys through the loop, which is what makes them work, and a module
    made inside the loop body still fails under `hk.scan` (`New parameters were created`).
    Linen's lifted transformations take a Module class or a function of the module, and
    options: in a linen method, `jax.lax.scan(f, init, xs)` (three positional arguments,
    keywords among `length`, `reverse`, `unroll`) becomes `nn.scan(lambda module, carry, x:
    f(carry, x), variable_broadcast="params", split_rngs={"params": False})(self, init,
    xs)`, which shares one set of parameters across the steps as the raw scan's closure
    did. Unsafe: variables of other collections (`batch_stats`) are neither broadcast nor
    carried, and random streams are not split per step. Other linen calls are not
    rewritten.

    ## Known problems
    Modules are recognised by the classes flax linen and haiku export (generated from
    them by `scripts/gen_framework_modules.py`) and by the file's own module classes,
    reached through a local name, `self.x` assigned once, or a linen field annotated with a
    module class; a module handed in as an argument is not seen, nor are calls in helpers
    the body calls.
    A module the enclosing function calls before the transformation is not reported (its
    parameters exist), nor is a linen method that no `init` of the file runs: when an
    `init` there names a method of the class (`model.init(key, x, method=Model.probe)`),
    neither it, `__call__` nor `setup` calls this one through `self`, and no class of the
    file derives from it, the loop runs only under `apply`. Where the `init` is in another
    file, the loop is still reported.
    """

    code = "JIT120"
    name = "framework-transform-mixing"
    summary = "A raw jax transformation stages out a flax linen or haiku module's body."
    fix_availability = "sometimes"
    tier = 2
    runtime_error = "UnexpectedTracerError"
    # The packages of the frameworks whose modules create parameters when first called.
    requires = tuple(
        dict.fromkeys(n for p in plugins() if p.submodules_in is not None for n in p.packages)
    )

    VALID = (
        # The lifted version.
        """
import haiku as hk
def forward(xs):
    cell = hk.Linear(4)
    return hk.scan(lambda c, x: (c, cell(x)), 0.0, xs)[1]
model = hk.transform(forward)
""",
        # vmap and grad do not stage the function out: they work.
        """
import flax.linen as nn
import jax
class Batched(nn.Module):
    @nn.compact
    def __call__(self, xs):
        dense = nn.Dense(4)
        return jax.vmap(dense)(xs) + jax.grad(lambda v: dense(v).sum())(xs)
""",
        # The module ran before the loop: its parameters exist, the loop reads them.
        """
import flax.linen as nn
import jax
class Warm(nn.Module):
    @nn.compact
    def __call__(self, xs):
        cell = nn.Dense(4)
        first = cell(xs[0])
        return jax.lax.scan(lambda c, x: (c, cell(x)), first, xs)[1]
""",
        # A body with no module in it, and a helper method that calls none.
        """
import flax.linen as nn
import jax
class Cumulative(nn.Module):
    def step(self, c, x):
        return c + x, c
    @nn.compact
    def __call__(self, xs):
        w = self.param("w", nn.initializers.ones, (4,))
        ys = jax.lax.scan(lambda c, x: (c + x, c), 0.0, xs)[1]
        return jax.lax.scan(self.step, 0.0, ys * w)[1]
""",
        # A module's `apply` under a raw transformation, outside any module: fine.
        """
import flax.linen as nn
import jax
model = nn.Dense(4)
def predict(params, xs):
    return jax.lax.map(lambda x: model.apply(params, x), xs)
predict_jit = jax.jit(predict)
""",
        # The parameters are made by an init through another method; the loop's method
        # runs only under apply, where the submodules read them (navix's Dreamer).
        """
import flax.linen as nn
import jax
import jax.numpy as jnp
class World(nn.Module):
    def setup(self):
        self.cell = nn.Dense(4)
    def probe(self, x):
        return self.cell(x)
    def imagine(self, x):
        return jax.lax.scan(lambda c, _: (self.cell(c), c), x, None, length=3)[1]
world = World()
params = world.init(jax.random.PRNGKey(0), jnp.ones((2, 4)), method=World.probe)
def rollout(params, x):
    return world.apply(params, x, method=World.imagine)
""",
        # A module without parameters.
        """
import haiku as hk
import jax
def forward(xs):
    flat = hk.Flatten()
    return jax.lax.map(flat, xs)
model = hk.transform(forward)
""",
    )
    INVALID = (
        # flax: a submodule of `setup` in a raw scan, directly and through a bound method.
        """
import flax.linen as nn
import jax
class Decoder(nn.Module):
    def setup(self):
        self.cell = nn.Dense(4)
    def step(self, c, x):
        return c, self.cell(x)
    def __call__(self, xs):
        ys = jax.lax.scan(lambda c, x: (c, self.cell(x)), 0.0, xs)[1]  # error: JIT120
        return jax.lax.scan(self.step, 0.0, ys)[1]  # error: JIT120
""",
        # A linen field holding a submodule (`cell: nn.Module`).
        """
import flax.linen as nn
import jax
class Sequence(nn.Module):
    cell: nn.Module
    def __call__(self, xs):
        return jax.lax.scan(lambda c, x: (c, self.cell(x)), 0.0, xs)[1]  # error: JIT120
model = Sequence(nn.Dense(4))
""",
        # A module passed to a raw checkpoint, a parameter read in a fori_loop body, a
        # module made inside a branch.
        """
import flax.linen as nn
import jax
class Block(nn.Module):
    @nn.compact
    def __call__(self, x, flag):
        dense = nn.Dense(4)
        y = jax.checkpoint(dense)(x)  # error: JIT120
        def body(i, v):
            return v * self.param("scale", nn.initializers.ones, (4,))
        y = jax.lax.fori_loop(0, 3, body, y)  # error: JIT120
        return jax.lax.cond(flag, lambda v: nn.Dense(4)(v), lambda v: v, y)  # error: JIT120
""",
        # haiku: a module of the file inside an hk.Module method, a local def in a
        # transformed function, get_parameter in a raw map.
        """
import haiku as hk
import jax
import jax.numpy as jnp
class Cell(hk.Module):
    def __call__(self, x):
        return hk.Linear(4)(x)
class Stack(hk.Module):
    def __init__(self):
        super().__init__()
        self.cell = Cell()
    def __call__(self, xs):
        return jax.lax.map(self.cell, xs)  # error: JIT120
def forward(xs):
    mlp = hk.nets.MLP([4, 4])
    def body(c, x):
        return c, mlp(x)
    ys = jax.lax.scan(body, 0.0, xs)[1]  # error: JIT120
    return jax.lax.map(lambda x: x * hk.get_parameter("w", [], init=jnp.ones), ys)  # error: JIT120
model = hk.transform(forward)
""",
        # The init names a method that reaches the loop through self: it runs at init.
        """
import flax.linen as nn
import jax
import jax.numpy as jnp
class World(nn.Module):
    def setup(self):
        self.cell = nn.Dense(4)
    def probe(self, x):
        return self.imagine(x)
    def imagine(self, x):
        return jax.lax.scan(lambda c, _: (self.cell(c), c), x, None, length=3)[1]  # error: JIT120
world = World()
params = world.init(jax.random.PRNGKey(0), jnp.ones((2, 4)), method=World.probe)
""",
        # A subclass's `__call__` runs the loop at its own (default) init.
        """
import flax.linen as nn
import jax
import jax.numpy as jnp
class World(nn.Module):
    def setup(self):
        self.cell = nn.Dense(4)
    def probe(self, x):
        return self.cell(x)
    def imagine(self, x):
        return jax.lax.scan(lambda c, _: (self.cell(c), c), x, None, length=3)[1]  # error: JIT120
class Dreaming(World):
    def __call__(self, x):
        return self.imagine(x)
params = World().init(jax.random.PRNGKey(0), jnp.ones((2, 4)), method=World.probe)
dream = Dreaming().init(jax.random.PRNGKey(0), jnp.ones((2, 4)))
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        # `a.b.scan(...)` names `<something>.scan` whatever `a.b` is: a cheap test before
        # resolving names (a bare name may be an import alias, so it is always resolved).
        if type(func) is cst.Attribute and func.attr.value not in _STAGING_LEAVES:
            return
        path = self.ctx.path_to(node)
        qualnames = self.ctx.names.qualified_names(func, path)
        if len(qualnames) != 1 or not qualnames <= STAGING:
            return
        qualname = next(iter(qualnames))
        lifting = self.ctx.tracing.lifting
        if (
            lifting.framework_class(path) is None
            and self.ctx.tracing.function_at(path) is None
            and not self.ctx.tracing.paired_at(path)
        ):
            return  # neither a module's method nor code that runs in `init`/`apply`
        uses = lifting.uses(node, qualname, path)
        if not uses:
            return
        first = uses[0]
        short = qualname.replace("jax.ad_checkpoint.", "jax.")
        framework = _framework(first.framework)
        advice = framework.lift_advice.get(qualname)
        self.report(
            node.func,
            f"{first.what} runs inside raw `{short}`, which stages its function out: the "
            f"{framework.display} module's parameters are created from tracers of that "
            "trace and leak out of it (`UnexpectedTracerError` once `init`'s result is used)",
            help=f"use {advice}, or call the module once before `{short.rsplit('.', 1)[1]}` "
            "so that its parameters exist"
            if advice
            else "call the module once before the transformation so that its parameters exist",
            fix=self._rename_fix(node, qualname, uses) or self._scan_fix(node, qualname, uses),
        )

    def _scan_fix(self, node: cst.Call, qualname: str, uses: list[ModuleUse]) -> NodeFix | None:
        """A raw scan calling the method's own submodules becomes the framework's lifted scan
        (linen's `nn.scan`), where its plug-in has one."""
        framework = _framework(uses[0].framework)
        if qualname != LAX_SCAN or framework.lifted_scan_options is None:
            return None
        if not all(u.framework == framework.kind for u in uses):
            return None
        path = self.ctx.path_to(node)
        found = self.ctx.tracing.lifting.framework_class(path)
        if found is None or found[0] != framework.kind:
            return None
        from jitlint.fixes.framework_modules import lifted_scan_fix

        return lifted_scan_fix(self.ctx, node, path, framework)

    def _rename_fix(self, node: cst.Call, qualname: str, uses: list[ModuleUse]) -> NodeFix | None:
        framework = _framework(uses[0].framework)
        twin = framework.lift_twins.get(qualname)
        if twin is None or framework.import_as is None:
            return None
        if not all(u.framework == framework.kind and u.made_outside for u in uses):
            return None
        name, keywords = twin
        for arg in node.args:
            if arg.star or (arg.keyword is not None and arg.keyword.value not in keywords):
                return None
        hk, imported = self.ctx.import_name(*framework.import_as)
        return NodeFix(
            "unsafe",
            f"use `{hk}.{name}`, which threads {framework.display}'s parameters and state through",
            ((node.func, f"{hk}.{name}"),),
            (imported,) if imported else (),
        )
