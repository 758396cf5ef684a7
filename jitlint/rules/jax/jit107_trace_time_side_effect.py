from __future__ import annotations

import libcst as cst

from jitlint.model.domain.flows import Sink
from jitlint.model.domain.values import Object, shows_tracer
from jitlint.model.jax.api import HOST_RANDOM_PREFIXES, HOST_RANDOM_STATE
from jitlint.model.jax.tracing import FunctionTrace, Value, snippet
from jitlint.model.jax.transforms import enclosing_function
from jitlint.python.attributes import read_again
from jitlint.python.builtins_facts import CLOCKS as _CLOCKS
from jitlint.python.builtins_facts import CONTAINER_MUTATORS as _MUTATORS
from jitlint.python.builtins_facts import CONTAINER_TYPES as _CONTAINERS
from jitlint.python.builtins_facts import LOG_METHODS as _LOG_METHODS
from jitlint.python.builtins_facts import LOG_MODULES, PRINT, WARN, builtin_name
from jitlint.python.uses import read_only_by_checks
from jitlint.python.walker import descendants
from jitlint.rules.base import JAX_TRACING, Rule


class TraceTimeSideEffect(Rule):
    """
    ## What it does
    Finds Python side effects inside a function JAX traces whose wrong result the model can
    see:

    - `print`, `logging` (absl's too) and `warnings.warn` of a value known to be traced: the
      output shows a tracer, once, not the values;
    - a clock read (`time.time()`) or a Python or NumPy random draw whose result the traced
      computation uses: an operator or index on a tracer, a call returning a tracer, a
      `return`, the test of an `if` or `while`, the iterable of a `for`, followed through
      local and global names and `self` attributes (a draw in a constructor used by
      `__call__`);
    - a tracer stored in a list, dict or set defined outside the function (`seen.append(x)`,
      `cache[k] = x`), or in a `global` or `nonlocal` name;
    - an update (`n += 1`, `n = n + 1`) of a `global` or `nonlocal` name, or of an attribute
      of an object made outside the trace (`self.n += 1` in a jitted bound method of a plain
      class), whose value the traced computation then uses in one of the ways above.

    ## Why is this bad
    JAX runs the Python body once, while tracing, and then reuses the compiled program.
    Side effects happen once per trace, not once per call, and see tracers instead of
    values: `print(x)` prints `JitTracer(float32[3])` on the first call and nothing
    afterwards; `time.time()` and `np.random.rand()` become constants baked into the
    program; an outer list grows once. Nothing raises, so the bug is silent.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(x):
        print("x =", x)  # error: JIT107
        return x * 2


    step(jnp.arange(3.0))
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(x):
        jax.debug.print("x = {}", x)
        return x * 2


    step(jnp.arange(3.0))
    ```

    ## Fix safety
    `print(a, b)` without keyword arguments becomes `jax.debug.print("{} {}", a, b)`, with
    literal strings folded into the format string. It is unsafe: the output now appears on
    every call, from the device, possibly out of order with other output, and values are
    formatted by JAX rather than by `str`. `logging.info("loss %s", x)` (a literal message
    and positional values) becomes `jax.debug.callback(lambda *values:
    logging.info("loss %s", *values), x)`: unsafe for the same reasons, and the values
    reach the logger as NumPy arrays. A statement `seen.append(x)` (or `add`, `extend`,
    `appendleft`) storing a tracer in an outer container becomes
    `jax.debug.callback(seen.append, x)`: unsafe, the container now fills on every call as
    the compiled program runs, asynchronously, and holds NumPy arrays. `warnings.warn`,
    `cache[k] = x` and `global`/`nonlocal` writes get no fix. An attribute updated
    on an object made outside the trace, in a function whose only way of being traced is
    one `jax.jit(f)` call of this file with no options (`fast = jax.jit(counter.count)`),
    is fixed by calling `f` without jit (`fast = counter.count`): unsafe, the function then
    runs op by op, and returns Python values where the compiled code returned arrays;
    making it pure (return the new state) keeps jit but needs a person.

    ## Known problems
    Side effects whose result only Python reads are trace-time bookkeeping and are not reported:
    `print` and logging of static values (shapes, dtypes, configuration, strings) or of values
    of unknown kind; a counter of traces or a label allocator (`global n; n += 1` read only
    outside the trace or only as text); a clock read only by a host callback
    (`jax.debug.callback`); a draw that only becomes text; `np.random.seed(...)`; Python values
    appended to outer lists (names, shapes) or stored in registries and caches, and tracers kept
    in an outer list that only assertions read (a test counting what the trace saw) or in a
    module's container that a function of the module returns or yields (a tap whose record the
    traced caller returns). A write of
    a value that does not depend on the old one (`self.mode = "eval"`) loses nothing by running
    once per trace and is not reported either. Nor is an update of `self` in a method jitted
    with `self` as an ordinary (not static) argument: the jit flattens it, and the trace works
    on the copy its pytree class rebuilds, which the method usually returns (a module class of a
    library the run does not read). A counter meant to count calls but read only by Python code
    after the calls (`total += 1`, then `return total` in the untraced caller) is missed with
    them: the model cannot tell it from a count of compiles. A value is followed through at most
    four names or attributes, within one file, and through `self.attr` only inside its own
    class; a draw or an update whose use the model loses (passed to a function of another file,
    stored in a container first) is not reported, nor are draws from a generator object (`rng =
    np.random.default_rng(); rng.normal()`): making or seeding one is not a draw, and with a
    fixed seed its draws are the same on every call. Mutations are reported only for names bound
    at module level, `global` names, or names of enclosing untraced functions.
    """

    code = "JIT107"
    name = "trace-time-side-effect"
    summary = "A Python side effect in traced code runs once per trace, not once per call."
    severity = "warning"
    fix_availability = "sometimes"
    requires = JAX_TRACING
    uses_tracing = True

    VALID = (
        # `self` given to the jit as an argument, not static: the jit flattens it and the
        # trace works on the copy its class's unflatten builds (a pytree module of a library
        # the run does not read), which the method returns.
        """
from functools import partial
import jax
from pytree_lib import Module
class Model(Module):
    @partial(jax.jit, static_argnums=(1,))
    def init_step(self, seed, inputs):
        self.module = self.module.init(seed, inputs=inputs)
        return self
    @jax.jit
    def predict(self, x):
        return self.module(x)
model = Model()
model = model.init_step(0, 1.0)
model.predict(1.0)
""",
        # A tracer stored on the object leaks (a leaked tracer, not a value set once).
        """
import jax
class Sim:
    def step(self, x):
        self.last = x * 2
        return x
sim = Sim()
jax.jit(sim.step)(1.0)
""",
        # An object made while tracing, and a method run in Python.
        """
import jax
class Box:
    def __init__(self):
        self.n = 0
    def bump(self):
        self.n += 1
        return self.n
@jax.jit
def f(x):
    box = Box()
    box.n = 2
    return x * box.bump()
Box().bump()
""",
        # A nonlocal written by a remat-ed closure: traced on every call, once per call.
        """
import haiku as hk
def run(fn, x):
    structure = None
    @hk.remat
    def inner(x):
        nonlocal structure
        out = fn(x)
        structure = type(out)
        return out
    return inner(x), structure
""",
        # A nonlocal of a function that is itself traced: a fresh local per trace.
        """
import jax
import jax.tree_util as jtu
def contains(tree, node):
    found = False
    def visit(x):
        nonlocal found
        if x is node:
            found = True
        return x
    jtu.tree_map(visit, tree)
    return found
@jax.jit
def f(x):
    return x if contains(x, None) else -x
""",
        # A test that keeps what the trace saw, to count it: only its assertions read the
        # list, so it fills once per trace on purpose.
        """
import jax
import jax.numpy as jnp
def test_jit_sees_two_leaves():
    seen = []
    jax.jit(lambda tree: seen.append(jax.tree_util.tree_leaves(tree)) or 0.0)(
        {"a": jnp.ones(2), "b": jnp.zeros(3)}
    )
    assert len(seen[0]) == 2
""",
        # A tap: the module hands its record to the traced caller (a context manager yields
        # it), which returns what it holds as outputs; where it is read is the caller's.
        """
import contextlib
import jax
_TAPS = {}
@contextlib.contextmanager
def tapping():
    global _TAPS
    previous = _TAPS
    _TAPS = {}
    try:
        yield _TAPS
    finally:
        _TAPS = previous
def tap(name, value):
    _TAPS[name] = value
    return value
@jax.jit
def model(x):
    with tapping() as taps:
        y = tap("hidden", x * 2)
        return y + 1, dict(taps)
""",
        # Printing static values at trace time is deliberate.
        """
import jax
@jax.jit
def f(x):
    print("tracing f for shape", x.shape)
    return x
""",
        """
import jax
@jax.jit
def f(x):
    jax.debug.print("x = {}", x)
    out = []
    out.append(x)
    return out
""",
        # Recording static facts at trace time is deliberate; methods are not mutations.
        """
import jax
shapes = []
@jax.jit
def f(x, opt, state):
    shapes.append(x.shape)
    updates, state = opt.update(x, state)
    return updates
""",
        # Not traced.
        """
import time
import jax.numpy as jnp
calls = []
def f(x):
    print(jnp.sum(x), time.time())
    calls.append(1)
    return x
""",
        # Trace-time bookkeeping: a counter of traces that only Python reads.
        """
import jax
from jax import lax
TRACES = 0
def run(x):
    def body(i, c):
        global TRACES
        TRACES += 1
        return c + i
    return lax.fori_loop(0, 3, body, x)
""",
        # A nonlocal counter the enclosing Python function returns: counting compiles and
        # counting calls read the same; only traced code using it shows the difference.
        """
import jax
def run(xs):
    total = 0
    @jax.jit
    def step(x):
        nonlocal total
        total += 1
        return x
    for x in xs:
        step(x)
    return total
""",
        # An attribute counter only Python reads, and a value set to the same thing on every
        # call (running it once per trace loses nothing).
        """
import jax
class Stats:
    def __init__(self):
        self.compiles = 0
        self.mode = "train"
    def step(self, x):
        self.compiles += 1
        self.mode = "eval"
        return x * 2 if self.mode == "eval" else x
stats = Stats()
jax.jit(stats.step)(1.0)
""",
        # A label allocator: the counter only ever becomes text.
        """
import jax
_NEXT = 0
names = []
def fresh_label():
    global _NEXT
    _NEXT += 1
    return f"var_{_NEXT}"
@jax.jit
def f(x):
    names.append(fresh_label())
    return x
""",
        # A clock read only by a host callback, draws and clocks that only become text, a
        # seed and a seeded generator (its draws are the same on every call anyway), a
        # registry keyed by shape, dict keys of a traced pytree collected by name.
        """
import random
import time
import warnings
import jax
import numpy as np
kernels = {}
names = []
@jax.jit
def f(x, params):
    start = time.time()
    def report(v):
        print("elapsed", time.time() - start, v)
    jax.debug.callback(report, x)
    print(f"run-{random.randint(0, 999)}", x.shape)
    np.random.seed(0)
    rng = np.random.RandomState(0)
    for k in params:
        names.append(k)
    kernels[x.shape] = len(names)
    warnings.warn(f"compiling for {x.shape}")
    t0 = time.perf_counter()
    y = x * 2 + rng.normal()
    print("traced in", time.perf_counter() - t0)
    return y
f(jax.numpy.ones(3), {"a": jax.numpy.ones(2)})
""",
        # A draw in a branch that the traced call's literal argument rules out, passed on
        # through a helper: under jit only the `jax.random` branch runs.
        """
import jax
import numpy as onp
def pick(v, use_jnp=False, key=None):
    if use_jnp:
        i = jax.random.randint(key, [], 0, v.shape[0])
    else:
        i = onp.random.randint(0, v.shape[0])
    return v[i]
def pick_all(v, use_jnp=False, key=None):
    return pick(v, use_jnp=use_jnp, key=key)
@jax.jit
def step(x, key):
    return pick_all(x, use_jnp=True, key=key)
""",
        # An equinox module's public method that returns nothing and only prints: the module
        # is immutable, so it is called for its output, in Python (flowMC's print_parameters).
        """
import equinox as eqx
import jax
class Flow(eqx.Module):
    mean: jax.Array
    def __call__(self, x: jax.Array):
        return x - self.mean
    def print_parameters(self):
        print("Flow parameters:")
        print(f"mean: {self.mean}")
""",
        # A module's key parameter annotated as a JAX array, with no default: its users' jit
        # passes a key there, so the clock-seeded fallback under `key is None` never runs.
        """
import time
import jax
import flax.linen as nn
class Noisy(nn.Module):
    width: int
    @nn.compact
    def __call__(self, x: jax.Array, *, key: jax.Array):
        if key is None:
            key = jax.random.PRNGKey(int(time.time()))
        return nn.Dense(self.width)(x + jax.random.normal(key, x.shape))
""",
        # The same fallback behind a `key=None` default: the contract says the module is
        # called under jit, not that its users leave the key out, and no call here does.
        """
import time
import jax
import flax.linen as nn
class Noisy(nn.Module):
    width: int
    @nn.compact
    def __call__(self, x, key=None):
        if key is None:
            key = jax.random.PRNGKey(int(time.time()))
        return nn.Dense(self.width)(x + jax.random.normal(key, x.shape))
""",
    )

    INVALID = (
        # The same log, but its tracer is used once the trace is over.
        """
import jax
import jax.numpy as jnp
def leaked():
    seen = []
    jax.jit(lambda tree: seen.append(jax.tree_util.tree_leaves(tree)) or 0.0)(  # error: JIT107
        {"a": jnp.ones(2), "b": jnp.zeros(3)}
    )
    return seen[0][0] + 1
""",
        # A jitted function of the run that applies the module without a key: the fallback
        # runs at trace time, and its clock is baked into the compiled step.
        """
import time
import jax
import flax.linen as nn
class Noisy(nn.Module):
    width: int
    @nn.compact
    def __call__(self, x, key=None):
        if key is None:
            key = jax.random.PRNGKey(int(time.time()))  # error: JIT107
        return nn.Dense(self.width)(x + jax.random.normal(key, x.shape))
def forward(params, x):
    return Noisy(4).apply(params, x)
step = jax.jit(forward)
""",
        # The same fallback after the body rebinds the key to None itself: then it runs.
        """
import time
import jax
import flax.linen as nn
class Noisy(nn.Module):
    width: int
    @nn.compact
    def __call__(self, x: jax.Array, *, key: jax.Array):
        key = None if x.ndim > 2 else key
        if key is None:
            key = jax.random.PRNGKey(int(time.time()))  # error: JIT107
        return nn.Dense(self.width)(x + jax.random.normal(key, x.shape))
""",
        # An attribute of an object made in Python, updated while tracing and returned.
        """
import jax
class Counter:
    def __init__(self):
        self.n = 0
    def count(self):
        self.n += 1  # error: JIT107
        return self.n
counter = Counter()
fast = jax.jit(counter.count)
fast()
""",
        """
import jax
import logging
import time
import numpy as np
calls = []
@jax.jit
def f(x):
    logging.info("x is %s", x)  # error: JIT107
    start = time.time()  # error: JIT107
    noise = np.random.normal()  # error: JIT107
    calls.append(x)  # error: JIT107
    return x + noise + start
""",
        # A global counter the traced body computes with; prints of the carry.
        """
import jax
from jax import lax
COUNT = 0
def run(x):
    def body(i, c):
        global COUNT
        COUNT += 1  # error: JIT107
        print(c)  # error: JIT107
        print(f"carry={c}")  # error: JIT107
        return c + i * COUNT
    return lax.fori_loop(0, 3, body, x)
""",
        # A draw that decides which layers the compiled program runs (LayerDrop).
        """
import random
import jax
@jax.jit
def forward(x):
    for _ in range(4):
        if random.uniform(0, 1) < 0.1:  # error: JIT107
            continue
        x = x * 2
    return x
""",
        # A draw stored on an object in its constructor and used by its call; a permutation
        # that indexes a tracer; a clock seeding a key; a tracer stored in an outer dict; a
        # warning showing a tracer.
        """
import time
import warnings
import jax
import numpy as np
cache = {}
class Layer:
    def __init__(self):
        self.scale = np.random.uniform(0.5, 1.5)  # error: JIT107
    def __call__(self, x):
        return x * self.scale
@jax.jit
def g(x):
    perm = np.random.permutation(3)  # error: JIT107
    key = jax.random.PRNGKey(int(time.time()))  # error: JIT107
    cache["last"] = x  # error: JIT107
    warnings.warn(f"x is {x}")  # error: JIT107
    return Layer()(x[perm]) + jax.random.normal(key)
""",
        # A tracer stored in an outer name leaks.
        """
import jax
def run(xs):
    last = None
    @jax.jit
    def step(x):
        nonlocal last
        last = x * 2  # error: JIT107
        return x
    for x in xs:
        step(x)
    return last
""",
        # The same draw when the traced call passes False: it runs at trace time.
        """
import jax
import numpy as onp
def pick(v, use_jnp=False, key=None):
    if use_jnp:
        i = jax.random.randint(key, [], 0, v.shape[0])
    else:
        i = onp.random.randint(0, v.shape[0])  # error: JIT107
    return v[i]
@jax.jit
def step(x, key):
    return pick(x, use_jnp=False, key=key)
""",
        # A public method of an equinox module that prints a field and returns a value:
        # traced by the contract, it shows the tracer.
        """
import equinox as eqx
import jax
class Flow(eqx.Module):
    mean: jax.Array
    def centred(self, x: jax.Array):
        print(f"mean: {self.mean}")  # error: JIT107
        return x - self.mean
""",
    )

    def _trace(self, node: cst.CSTNode) -> FunctionTrace | None:
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        if trace is None or not trace.abstract:
            return None
        # eval_shape/make_jaxpr are called for their trace: its side effects are the point.
        if trace.entries and all(e.transform.abstract_only for e in trace.entries):
            return None
        return trace

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if kind is cst.Name:
            if func.value != "print":  # type: ignore[attr-defined]
                return
        elif kind is not cst.Attribute:
            return
        trace = self._trace(node)
        if trace is None or not trace.reaches(node):
            return  # a branch that no traced call runs
        if kind is cst.Attribute and func.attr.value in _MUTATORS:  # type: ignore[attr-defined]
            self._mutation(node, func.value, trace)  # type: ignore[attr-defined]
            return
        qualnames = self.ctx.tracing.qualified(trace, func)
        if len(qualnames) != 1:
            return
        qualname = next(iter(qualnames))
        describe = self.ctx.tracing.describe  # positions are resolved only for a finding
        if qualname in _CLOCKS or _draws(qualname):
            # Only where the compiled program uses the result: a time read only by a host
            # callback, or a draw that only names something, is trace-time bookkeeping.
            sink = self.ctx.tracing.flows.first_sink(self.ctx.path_to(node))
            if sink is None:
                return
            if qualname in _CLOCKS:
                self.report(
                    node,
                    f"`{qualname}()` runs once, while {describe(trace)} is traced, and its result "
                    f"is {self._used(sink)}: the compiled program keeps it as a constant",
                    help="read the clock outside the jitted function and pass the value in",
                )
            else:
                self.report(
                    node,
                    f"`{qualname}` draws once, while {describe(trace)} is traced, and the draw is "
                    f"{self._used(sink)}: every call of the compiled program reuses it",
                    help="use `jax.random` with a key passed in as an argument",
                )
        elif qualname in PRINT or qualname in WARN or self._is_logging(qualname):
            for arg in node.args:
                value = trace.value(arg.value)
                if type(arg.value) is cst.FormattedString:
                    value = _formatted(trace, arg.value) or value
                if shows_tracer(value):
                    name = builtin_name(qualname) or qualname
                    if name == "print":
                        from jitlint.fixes.host_callbacks import debug_print_fix

                        fix = debug_print_fix(self.ctx, node)
                    else:
                        from jitlint.fixes.host_callbacks import log_callback_fix

                        fix = None if qualname in WARN else log_callback_fix(self.ctx, node)
                    self.report(
                        node,
                        f"`{name}` runs once, while {describe(trace)} is traced, and shows the "
                        f"tracer `{snippet(self.ctx.module, arg.value)}`, not its values; "
                        "later calls print nothing",
                        help='use `jax.debug.print("{}", x)` to print values on every call',
                        fix=fix,
                    )
                    return

    def _used(self, sink: Sink) -> str:
        """ "returned at line 12", "the test of the `if` at line 9"..."""
        line = self.ctx.tracing.line(sink.node)
        where = f" at line {line}" if line is not None else ""
        if sink.how == "returned":
            return f"returned{where}"
        if sink.how == "the test of":
            keyword = "if" if type(sink.node) is cst.If else "while"
            return f"the test of the `{keyword}`{where}"
        if sink.how == "iterated by":
            return f"iterated by the `for`{where}"
        return f"{sink.how} `{snippet(self.ctx.module, sink.node)}`{where}"

    @staticmethod
    def _is_logging(qualname: str) -> bool:
        head, _, leaf = qualname.rpartition(".")
        return head in LOG_MODULES and leaf in _LOG_METHODS

    def _mutation(self, node: cst.Call, target: cst.BaseExpression, trace: FunctionTrace) -> None:
        # Recording static facts (shapes, names) at trace time is a common, deliberate
        # idiom; storing a tracer outside is the bug.
        value = next(
            (trace.value(a.value) for a in node.args if shows_tracer(trace.value(a.value))), None
        )
        if value is None or type(target) is not cst.Name or not self._outer(target, trace, node):
            return
        from jitlint.fixes.host_callbacks import mutation_callback_fix

        self.report(
            node,
            f"`{snippet(self.ctx.module, node)}` stores a tracer in `{target.value}`, which "
            f"lives outside the traced function: it happens once, while "
            f"{self.ctx.tracing.describe(trace)} is traced, not on every call, and the stored "
            "tracer is invalid afterwards",
            help="return the value from the function instead of storing it outside",
            fix=mutation_callback_fix(self.ctx, node, self.ctx.path_to(node)),
        )

    def _outer(self, name: cst.Name, trace: FunctionTrace, store: cst.CSTNode) -> bool:
        """Whether `name` is bound outside the traced function (module, global, untraced
        enclosing function), to a container display or constructor, read there other than by
        checks (a log of traces a test asserts on fills once per trace on purpose), and not
        handed out by a function of the module (a context manager yielding a tap's record to
        the traced code that returns it: where it is read is not known)."""
        found = self.ctx.names.lookup_with_path(name.value, trace.path)
        if found is None:
            return False
        bindings, scope_path = found
        owner = scope_path[-2] if len(scope_path) >= 2 else scope_path[-1]
        if owner is trace.func:
            return False
        if type(owner) in (cst.FunctionDef, cst.Lambda):
            outer = self.ctx.tracing.trace(owner)  # type: ignore[arg-type]
            if outer is not None:
                return False  # a container built while tracing: it is fresh per trace
        elif type(owner) is not cst.Module:
            return False
        if not all(b.kind == "assign" and _is_container(b.node) for b in bindings):
            return False
        if type(owner) is cst.Module and self.ctx.names.handed_out(name.value):
            return False  # its readers are the callers the module hands it to, unseen here
        path = self.ctx.path_to(store)
        below = path[next(i for i, n in enumerate(path) if n is owner) + 1 :]
        staged = next((n for n in below if type(n) in (cst.FunctionDef, cst.Lambda)), None)
        return staged is None or not read_only_by_checks(owner, name.value, staged)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._global_write(node, node.target)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._global_write(node, target.target)

    def _global_write(self, node: cst.CSTNode, target: cst.BaseExpression) -> None:
        if type(target) is cst.Attribute:
            self._attribute_write(node, target)
            return
        if type(target) is cst.Subscript:
            self._item_store(node, target)
            return
        if type(target) is not cst.Name:
            return
        path = self.ctx.path_to(node)
        func = enclosing_function(path)
        if func is None or type(func) is not cst.FunctionDef:
            return
        trace = self._trace(node)
        if trace is None:
            return
        scope = self.ctx.names.scope(func)
        if target.value not in scope.declared_global | scope.declared_nonlocal:
            return
        if target.value in scope.declared_nonlocal and self._owner_traced(path, func, target.value):
            return  # a local of a function that runs while tracing too: fresh per trace
        if (
            target.value in scope.declared_nonlocal
            and trace.entries
            and not trace.inbound
            and all(e.transform.traces_every_call for e in trace.entries)
        ):
            # remat and grad keep no trace cache: the function is traced on every call, once,
            # as it would run, so the write happens every time (graphcast passes the output
            # structure out of an `hk.remat` closure this way).
            return
        kind = "global" if target.value in scope.declared_global else "outer"
        from jitlint.fixes.host_callbacks import mutation_callback_fix

        fix = mutation_callback_fix(self.ctx, node, path)
        help = "return the value from the function instead of storing it outside"
        if shows_tracer(trace.value(node.value)):  # type: ignore[attr-defined]
            self.report(
                node,
                f"assigning to the {kind} `{target.value}` stores a tracer outside the traced "
                f"function: it happens once, while {self.ctx.tracing.describe(trace)} is "
                "traced, not on every call, and the stored tracer is invalid afterwards",
                help=help,
                fix=fix,
            )
            return
        sink = self._update_used(node, target, path)
        if sink is None:
            return  # set to the same value each time, or a counter only Python reads
        self.report(
            node,
            f"updating the {kind} `{target.value}` happens once, while "
            f"{self.ctx.tracing.describe(trace)} is traced, not on every call, and the compiled "
            f"program keeps the value it had then: it is {self._used(sink)}",
            help=help,
            fix=fix,
        )

    def _update_used(
        self, node: cst.CSTNode, target: cst.BaseExpression, path: list[cst.CSTNode]
    ) -> Sink | None:
        """Where traced code uses the state `node` updates, when it is an update (`n += 1`,
        `n = n + 1`): a write of the same value on every call loses nothing, and a counter
        that only Python code reads (compiles counted, labels allocated) is trace-time
        bookkeeping."""
        if type(node) is not cst.AugAssign and not _mentions(node.value, target):  # type: ignore[attr-defined]
            return None
        return self.ctx.tracing.flows.state_sink(target, path)

    def _item_store(self, node: cst.CSTNode, target: cst.Subscript) -> None:
        """`cache[key] = x` with a tracer `x` and `cache` an outer container: the tracer
        leaks out of the trace, as with `cache.append(x)`."""
        if type(node) is not cst.Assign or type(target.value) is not cst.Name:
            return
        trace = self._trace(node)
        if trace is None or not shows_tracer(trace.value(node.value)):
            return
        if not self._outer(target.value, trace, node):
            return
        self.report(
            node,
            f"`{snippet(self.ctx.module, target)} = ...` stores a tracer in "
            f"`{target.value.value}`, which lives outside the traced function: it happens "
            f"once, while {self.ctx.tracing.describe(trace)} is traced, not on every call, "
            "and the stored tracer is invalid afterwards",
            help="return the value from the function instead of storing it outside",
        )

    def _attribute_write(self, node: cst.CSTNode, target: cst.Attribute) -> None:
        """`obj.attr += 1` in traced code, where `obj` was made in Python, outside any trace
        (the object of a jitted bound method, a module-level instance), and traced code
        uses the attribute: the update happens once, while tracing."""
        trace = self._trace(node)
        if trace is None:
            return
        obj = trace.value(target.value)
        if not isinstance(obj, Object) or obj.made_at != 0 or obj.traced:
            return
        assigned = getattr(node, "value", None)
        if assigned is not None and trace.value(assigned).traced:
            return  # a tracer stored outside: a leaked tracer (JIT108), not a value set once
        if obj.cls.kind not in (None, "dataclass") or obj.cls.decorator_options.get("frozen"):
            return  # frameworks keep state their own way; frozen classes raise instead
        sink = self._update_used(node, target, self.ctx.path_to(node))
        if sink is None:
            return
        from jitlint.fixes.eager_fix import unjit_fix

        self.report(
            node,
            f"updating `{snippet(self.ctx.module, target)}` changes an object made outside "
            f"the traced function: it happens once, while {self.ctx.tracing.describe(trace)} "
            f"is traced, not on every call, and the compiled program keeps the value it had "
            f"then: it is {self._used(sink)}",
            help="return the new value from the function instead of storing it on the object",
            fix=unjit_fix(self.ctx, trace),
        )

    def _owner_traced(self, path: list[cst.CSTNode], func: cst.FunctionDef, name: str) -> bool:
        """Whether the function whose local `nonlocal name` rebinds is traced itself."""
        index = next(i for i, node in enumerate(path) if node is func)
        for node in reversed(path[:index]):
            if type(node) is not cst.FunctionDef:
                continue
            scope = self.ctx.names.scope(node)  # type: ignore[arg-type]
            if name in scope.bindings and name not in scope.declared_nonlocal:
                return self.ctx.tracing.trace(node) is not None  # type: ignore[arg-type]
        return False


def _is_container(node: cst.CSTNode | None) -> bool:
    """A list/dict/set display or a call of a container type."""
    kind = type(node)
    if kind in (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp):
        return True
    if kind is cst.Call:
        func = node.func  # type: ignore[union-attr]
        leaf = func.value if type(func) is cst.Name else getattr(func, "attr", None)
        leaf = leaf.value if isinstance(leaf, cst.Name) else leaf
        return leaf in _CONTAINERS
    return False


def _draws(qualname: str) -> bool:
    """A draw from the host's global random generators (not making or seeding one)."""
    return qualname.startswith(HOST_RANDOM_PREFIXES) and qualname not in HOST_RANDOM_STATE


def _mentions(expr: cst.CSTNode, target: cst.BaseExpression) -> bool:
    """Whether `expr` reads `target` (a name, or `obj.attr`): `n = n + 1` is an update."""
    code = cst.Module([]).code_for_node
    wanted = code(target)
    return any(type(node) is type(target) and code(node) == wanted for node in descendants(expr))


def _formatted(trace: FunctionTrace, node: cst.FormattedString) -> Value | None:
    """A traced value formatted into an f-string (it prints the tracer's repr)."""
    for part in node.parts:
        if type(part) is cst.FormattedStringExpression:
            value = trace.value(part.expression)
            if shows_tracer(value):
                return value
    return None


class LeakedTracer(Rule):
    """
    ## What it does
    Finds a traced value stored on an object made outside the trace: `self.last = x` in a
    method that a jitted bound method (or a `lax` loop body it passes on) reaches, where
    `self` is a plain Python object created before the trace. It is the other half of
    JIT107's attribute check: there the stored value is a Python value set once, here it is
    a tracer.

    ## Why is this bad
    The tracer belongs to one trace. Once the traced function returns, the object still
    holds it, and using it later fails:

    ```text
    jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function
    transformed by JAX had a side effect, allowing for a reference to an intermediate
    value with type float32[3] to escape the scope of the transformation.
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    class Tracker:
        def __init__(self):
            self.last = None

        def step(self, x):
            y = jnp.tanh(x)
            self.last = y  # error: JIT108
            return y


    tracker = Tracker()
    jax.jit(tracker.step)(jnp.ones(3))
    print(tracker.last + 1)
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    class Tracker:
        def __init__(self):
            self.last = None

        def step(self, x):
            return jnp.tanh(x)


    tracker = Tracker()
    tracker.last = jax.jit(tracker.step)(jnp.ones(3))
    print(tracker.last + 1)
    ```

    ## Fix safety
    Where the function is traced only through one `jax.jit(f)` call of this file with no
    options (`jax.jit(tracker.step)`), the fix calls `f` without jit, as JIT107's does: the
    value stored is then a concrete array. Unsafe: the function runs op by op, and returns
    Python values where the compiled code returned arrays. Otherwise no fix: where the value
    should live instead (a return value, a loop carry, the caller) depends on the program.

    ## Known problems
    Only objects the model sees made in Python (at module level, or passed as the receiver
    of a jitted bound method) and classes of no framework are checked: equinox, flax and
    haiku modules keep state their own way. Stores into outer lists and dicts are JIT107's.
    The leak raises only where the tracer is used, so a store is reported only where the
    file reads the attribute again after the trace: outside the storing method (another
    method, the object's users), or in it before the store (the next trace reads what the
    last one left). A tracer kept for a debugger, or read only later in the same trace, is
    not reported; neither is one whose reader is in another file.
    """

    code = "JIT108"
    name = "leaked-tracer"
    summary = "A tracer stored on an object made outside the trace leaks out of it."
    fix_availability = "sometimes"
    runtime_error = "UnexpectedTracerError|unexpected tracer"
    requires = JAX_TRACING
    uses_tracing = True

    VALID = (
        # The tracer is kept, but nothing reads the attribute once the trace is over: only
        # the rest of the same trace uses it, so it never leaves the trace in use.
        """
import jax
import jax.numpy as jnp
class Map:
    def __init__(self, gain):
        self.gain = gain
    def body(self, carry):
        i, state = carry
        self.scaled = self.gain * state
        return i + 1, jnp.tanh(self.scaled)
    def run(self, x0):
        return jax.lax.while_loop(lambda c: c[0] < 3, self.body, (0, x0))[1]
m = Map(1.5)
jax.jit(m.run)(jnp.ones(3))
""",
        # A Python value set on the object: JIT107's, not a leaked tracer.
        """
import jax
class Sim:
    def __init__(self):
        self.calls = 0
    def step(self, x):
        self.calls = 1
        return x * 2
sim = Sim()
jax.jit(sim.step)(1.0)
""",
        # An object built inside the trace holds its tracers only while tracing.
        """
import jax
import jax.numpy as jnp
class Acc:
    def __init__(self, x):
        self.total = x
    def add(self, y):
        self.total = self.total + y
        return self
@jax.jit
def f(x):
    return Acc(x).add(jnp.ones(3)).total
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp
class Map:
    def __init__(self, gain):
        self.gain = gain
        self.last = None
    def body(self, carry):
        i, state = carry
        self.last = state  # error: JIT108
        return i + 1, jnp.tanh(self.gain * state)
    def run(self, x0):
        return jax.lax.while_loop(lambda c: c[0] < 3, self.body, (0, x0))[1]
m = Map(1.5)
jax.jit(m.run)(jnp.ones(3))
print(m.last)
""",
        # Read by the next trace, before the store: what the last trace left.
        """
import jax
import jax.numpy as jnp
class Smoother:
    def __init__(self):
        self.prev = jnp.zeros(3)
    def step(self, x):
        y = 0.5 * (x + self.prev)
        self.prev = y  # error: JIT108
        return y
s = Smoother()
jax.jit(s.step)(jnp.ones(3))
""",
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if type(target.target) is cst.Attribute:
                self._store(node, target.target)  # type: ignore[arg-type]

    def _store(self, node: cst.Assign, target: cst.Attribute) -> None:
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        if trace is None or not trace.abstract:
            return
        if trace.entries and all(e.transform.abstract_only for e in trace.entries):
            return
        obj = trace.value(target.value)
        if not isinstance(obj, Object) or obj.made_at != 0 or obj.traced:
            return
        if obj.cls.kind not in (None, "dataclass") or obj.cls.decorator_options.get("frozen"):
            return  # frameworks keep state their own way; frozen classes raise instead
        value = trace.value(node.value)
        if not shows_tracer(value):
            return
        if not read_again(self.ctx.module, target.attr.value, trace.func, node):
            return  # nothing reads it once the trace is over: the tracer is never used
        from jitlint.fixes.eager_fix import unjit_fix

        self.report(
            node,
            f"`{snippet(self.ctx.module, target)}` keeps a tracer on an object made outside "
            f"the trace: {self.ctx.tracing.explain(value)}; once tracing ends, using it "
            "raises UnexpectedTracerError",
            help="return the value from the traced function and store it on the object outside",
            fix=unjit_fix(self.ctx, trace),
        )
