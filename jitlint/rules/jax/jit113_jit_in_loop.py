from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.repeats import Repetition, local_repetition
from jitlint.model.domain.values import BoundMethod, Object
from jitlint.model.library.jax_facts import fresh_wrappers
from jitlint.python.builtins_facts import PARTIAL, STATICMETHOD
from jitlint.python.walker import contains, iter_children
from jitlint.rules.base import Rule


class JitInLoop(Rule):
    """
    ## What it does
    Finds `jax.jit` applied to a function object that is new every time the code runs — a
    lambda, a `functools.partial(...)`, a `jax.vmap(...)`/`jax.grad(...)` wrapper, a function
    defined in the enclosing function, or a bound method `self.method` — when the jitted
    result is called right there (`jax.jit(g)(x)`, or `h = jax.jit(g)` followed only by calls
    of `h`), and that code runs repeatedly: inside a loop or comprehension, or in a function
    that runs repeatedly (model/domain/repeats.py): one the module calls from a loop (or
    calls from such a function), or one called repeatedly by contract, even where no loop
    is visible: a model's `predict`, an agent's `act`/`take_action`/`select_action`, a
    `train_step` method, a request handler (`@app.route(...)`, `do_GET`). A loop that runs
    its body once (it breaks, returns or raises on every path, or iterates one written-out
    element) is no repetition. Only when nothing the new function captures changes between
    repetitions, or what changes is an array or a step count read as data: a different
    configuration per pass (a dtype, a setting, a config object, a size or shape the
    function is built for) needs its own compile and is not reported (Known problems).

    ## Why is this bad
    jit caches compiled code on the identity of the function it wraps. A new lambda,
    partial, wrapper or bound method each time means a cache miss each time: every loop
    iteration (or every call of the enclosing function) traces and compiles again. Nothing
    fails; the program is just slow. Observed on jax 0.10.2, five loop iterations:

    | pattern | traces |
    |---|---|
    | `jax.jit(lambda y: g(y))(x)` | 5 |
    | `jax.jit(functools.partial(g, n=2.0))(x)` | 5 |
    | `jax.jit(jax.vmap(g))(x)` | 5 |
    | `jax.jit(obj.method)(x)` (same `obj`) | 5 |
    | `jax.jit(h)(x)`, `h` defined by a function that runs each time | 5 |
    | `jax.jit(h)(x)`, `h` defined once before the loop | 1 |
    | `jax.jit(g)(x)`, `g` defined at module level | 1 |

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    def scale(x, factor):
        return x * factor


    x = jnp.ones(3)
    for step in range(3):
        x = jax.jit(lambda y: scale(y, 2.0))(x)  # error: JIT113
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def double(y):
        return y * 2.0


    x = jnp.ones(3)
    for step in range(3):
        x = double(x)
    ```

    ## Fix safety
    Inside a loop, `jax.jit(...)` is hoisted to a new assignment just before the loop, under a
    name no code in the module uses (`step_jit`, `jitted`, ...), and the call site uses that
    name. It goes above the outermost enclosing loop it can leave. The fix is offered only
    when nothing the `jax.jit(...)` expression reads (the free names of a lambda body
    included) is bound in that loop: not the loop target, no assignment, `del`, `with ... as`,
    `def`, import, and no attribute or item assignment (`cfg.x = ...`) or in-place method
    (`history.append(...)`) on it. It is not offered out of a `try`, `with`, `match` or class
    body, or when the jitted function is a local `def` inside the loop.

    Built on every call of a module-level function or method instead (also in a loop or
    comprehension the first fix cannot leave), `jax.jit(...)` becomes a new module-level
    name assigned above the function (or its class) when every name it reads is a
    module-level name bound once before it, or a builtin; when it reads the method's `self`
    (`jax.jit(self.update)`), a new attribute set at the end of the class's `__init__`
    (`self.step_jit = jax.jit(self.update)`), when each `self.x` it reads is set in
    `__init__` or is a method. A `@jax.jit` local `def` that reads nothing of its function
    moves, whole, to module level; one that reads only `self` of it moves to the end of
    `__init__`, followed by `self.name = name`, and the method's uses read `self.name`. The
    class must have its own `__init__` ending with a simple statement, no decorator (a
    dataclass or a registered pytree would lose the attribute) and only plain classes of
    the module as bases; never out of a `try`, `with` or lambda.

    The fix is unsafe: the `jax.jit(...)` expression (and the arguments of a `partial`) is
    now evaluated once, before the loop, even when the loop runs zero times or an `if`
    inside it would have skipped it, and an exception it raises is raised there. The jitted
    function is now traced once, at the first call, so a value the function reads that the
    loop changes in a way not visible here (a method that mutates an object, a global
    rebound by a called function) is baked in from the first iteration. Built once in
    `__init__`, a jitted bound method keeps the instance it was made with and bakes in the
    attributes of `self` it reads at the first trace (before, each call traced again and
    saw their current values). Values that do change per iteration must become arguments,
    which needs a person to decide.

    ## Known problems
    Factories are not reported: when the jitted function is returned, stored, or passed on,
    it is built once and reused, which is the right pattern. A function that jits and calls a
    new function object (also a `@jax.jit` local `def`) is reported only when this module
    calls it (`f(...)`, `self.f(...)`, or `obj.f(...)` on an instance the tracing model
    knows) inside a loop, or it is one of the methods called repeatedly by contract above:
    a `main()` or a test that runs once compiles once, and callers in other modules are not
    seen. A function memoized with `functools.lru_cache` or `functools.cache` runs its body
    once per distinct arguments, so it is not repeated by the loops that call it. A function
    JAX itself traces (a jitted `train_step`, a helper called from traced code) runs its
    body once per trace, not once per call: a `jax.jit(...)` there is
    inlined into the outer computation and is not reported unless it is in a loop. A bound
    method of an instance (`jax.jit(sim.step)`) is new on every attribute access. `jax.jit`
    of a module-level function, or of a parameter, is never reported. Nor is one in a loop
    that runs its body once (python/uses.py): over a written-out collection of one element
    (`for x in [a]:`), or whose body ends, on every path, in `break`, `return`, `raise` or
    a process exit (`sys.exit`), an `if`/`else` whose every branch does included, with no
    `continue` before it; a `try` whose handlers go on to the next pass retries only after
    an error. Code in such a loop repeats only through the loops around it. Nor is one under a
    run-once guard, an `if` whose test is a flag its own body clears or sets (`if
    need_compile: ...; need_compile = False`, `if self.fn is None: self.fn = ...`): it is
    rebuilt only when other code re-arms the flag, which is usually when its baked-in
    values change; nor one under an `if` in the loop whose test reads a name the loop
    assigns (`if changed: step = jax.jit(...)`), which rebuilds it when a setting changes.

    Nor is a function that captures Python configuration that changes from one repetition
    to the next (model/domain/captures.py): a lambda's or local function's free names (and
    those of the local functions it names), a `partial`'s or wrapper's arguments, a bound
    method's receiver, when one of them is rebound or mutated by the loop (its target, an
    assignment, `config[k] = v`), is a comprehension's target, or, in a function that runs
    repeatedly, is a parameter whose argument changes at the loop calls of this module that
    repeat it (every parameter but `self` when a contract or another file repeats it), a
    module-level name those loops change (`args.lr = lr`), or a local derived from these.
    Each pass then builds a different function on purpose (a dtype, an option string, a
    window size or None, a settings entry and the grid built from it, a sweep's config
    dict), and a compile per configuration is what the code asks for: a static argument
    would compile as often. Loop targets unpacked from `zip(...)`, `itertools.product(...)`,
    `enumerate(...)` or a written-out dict's `.items()` take the kind of what they unpack
    (`for lr, width in product([0.1, 0.01], [2, 3])` is configuration; `for xb, yb in
    zip(xs, ys)` over arrays is not), and a config object's attribute (`cfg.width`) is
    read through the object. Only when every such value is an array the model knows (it
    should be an argument) or a step count (the target of a `range` loop, an `enumerate`
    index, a counter the loop adds to) is it reported; a value whose kind the model cannot
    tell (a loop over a parameter's items) is not. A step count or array that decides the
    program is configuration too (a size): a `range` value that reaches `range(...)`, a
    shape or another argument jax needs as a Python value (`jnp.zeros((n, d))`,
    `jnp.tile(x, n)`, `x.reshape(n, -1)`), also through a `partial` or a call of a function
    of the module (`partial(stack, depth=n)` where `stack` loops `range(depth)`), or an
    index into a Python list of settings (`SETTINGS[i]`); and an array the loop rebuilds
    with a shape read from such a value (`grid = jnp.linspace(0, 1, n)`). Passed as an
    argument it would have to be static, and each value compiles once either way (observed
    on jax 0.10.2: three sizes, three compiles, jitted per pass or hoisted with a static
    argument; a step count read as data, three compiles jitted per pass against one
    hoisted). A step count read as data (`x * step`, `data[i]` on an array) or by a branch
    test (many values take the same branch, yet each pass compiles) keeps the finding.
    Whatever the kinds, a grid of configurations is not reported (model/domain/repeats.py,
    the fact TensorFlow's JIT207 asks too): every loop around the jit a `for` over a
    written-out list or tuple of literals, or a name bound once to one (`DTYPES =
    ("float32", "bfloat16")`), whose element the function captures, or, in a function that
    runs repeatedly, every call that repeats it passing such an element, in each of its
    loops, to a parameter the function captures. A loop over data or a comprehension
    inside the grid repeats one configuration and keeps the finding.
    """

    code = "JIT113"
    name = "jit-in-loop"
    summary = "`jax.jit` of a new lambda/partial/local function is built and called repeatedly."
    severity = "warning"
    fix_availability = "sometimes"
    requires = ("jit",)
    runtime_error = None

    VALID = (
        # A grid of configurations written out (here as a module-level tuple): each pass
        # jits a closure over another dtype and scale, or calls a function that does with
        # another dtype. One compile per configuration is needed; hoisting cannot remove it.
        """
import jax
DTYPES = ("float32", "bfloat16")
def cast(x, dtype):
    return jax.jit(lambda y: y.astype(dtype) + 1)(x)
def sweep(x):
    for dtype in DTYPES:
        for scale in [1, 2]:
            jax.jit(lambda y: y.astype(dtype) * scale)(x)
    for dtype in DTYPES:
        cast(x, dtype)
""",
        # One function per configuration the loop writes out: each compile is needed.
        """
import jax
import jax.numpy as jnp
def norm(x, intor):
    return x.sum() if intor == "ovlp" else x.max()
def check(coords):
    for intor in ["ovlp", "kin"]:
        fn = lambda x: norm(x, intor=intor)
        jax.jit(jax.grad(fn))(coords)
    dtypes = [jnp.float16, jnp.float32]
    dtypes += [jnp.float64]
    for dtype in dtypes:
        def make():
            return jnp.ones(3, dtype)
        jax.jit(make)()
""",
        # Each pass closes over Python configuration that changes: a settings entry and
        # what is built from it, a sweep's config dict updated in place, a window size or
        # None picking Python branches. One compile per configuration is needed.
        """
import jax
SETTINGS = {"small": {"n": 8}, "large": {"n": 64}}
def simulate(grid, x):
    return x * grid
def run_case(name, x):
    settings = SETTINGS[name]
    grid = settings["n"] * 2
    @jax.jit
    def run(y):
        return simulate(grid, y)
    return run(x)
for key in SETTINGS:
    run_case(key, 1.0)
def sweep(defaults, overrides, make_train, rngs):
    config = dict(defaults)
    for k, v in overrides.items():
        config[k] = v
        train = jax.jit(jax.vmap(make_train(config)))
        train(rngs)
def masks(make_state, ids):
    for window in [None, 1, 2]:
        state = make_state(window)
        jax.jit(jax.vmap(state.mask))(ids)
""",
        # The loop that repeats the function changes a module-level setting the function
        # reads; and a function rebuilt only when an `if` sees the setting change.
        """
import functools
import jax
class Args:
    lr = 0.1
args = Args()
def make_update(lr):
    return lambda p: p - lr
def train(params, batches):
    update = make_update(args.lr)
    @jax.jit
    def step(p):
        return update(p)
    for b in batches:
        params = step(params)
    return params
def search(params, batches):
    for lr in [0.1, 0.01]:
        args.lr = lr
        train(params, batches)
def adapt(state, sizes, update):
    current = None
    for size in sizes:
        changed = size != current
        if changed:
            step = jax.jit(functools.partial(update, n=size))
        current = size
        state = step(state)
""",
        # Loops that run their body once: over a written-out collection of one element,
        # or ending, on every path, in `break`, `raise`, `return` or a process exit.
        """
import sys
import jax
def run(x, state):
    for item in [x]:
        jax.jit(lambda y: y * 2)(item)
    while True:
        state = jax.jit(lambda s: s + 1)(state)
        if state.sum() > 0:
            break
        else:
            raise RuntimeError("diverged")
    for attempt in range(3):
        jax.jit(lambda y: y - 1)(x)
        if attempt:
            return x
        sys.exit(1)
""",
        # A loop value that decides the program: a depth `range` unrolls, a shape, an
        # array shaped by it, an index into a Python list of settings. Passed in as an
        # argument it would have to be static: one compile per value either way.
        """
import functools
import jax
import jax.numpy as jnp
SETTINGS = [{"width": 2}, {"width": 3}]
def stack(y, depth):
    for _ in range(depth):
        y = jnp.tanh(y)
    return y
def sweep(x):
    for n in range(1, 4):
        jax.jit(functools.partial(stack, depth=n))(x)
        jax.jit(lambda y: jnp.zeros((n, 2)) + y)(x)
        grid = jnp.linspace(0.0, 1.0, n)
        jax.jit(lambda y: y.sum() + grid.sum())(x)
    for i, _ in enumerate(SETTINGS):
        jax.jit(lambda y: jnp.tile(y, SETTINGS[i]["width"]))(x)
""",
        # Configurations unpacked from `itertools.product`, `zip` or a dict's items, a
        # config object's attribute, and each function of a table jitted in turn.
        """
import functools
import itertools
import jax
import jax.numpy as jnp
class Cfg:
    def __init__(self, width):
        self.width = width
def model(x, width, lr):
    return jnp.tile(x * lr, width)
def sweeps(x):
    for lr, width in itertools.product([0.1, 0.01], [2, 3]):
        jax.jit(functools.partial(model, width=width, lr=lr))(x)
    for width, lr in zip([2, 3], [0.1, 0.01]):
        jax.jit(lambda y: model(y, width, lr))(x)
    for name, width in {"small": 2, "large": 3}.items():
        jax.jit(lambda y: model(y, width, 0.1))(x)
    for cfg in [Cfg(2), Cfg(3)]:
        jax.jit(lambda y: jnp.tile(y, cfg.width))(x)
    for name, fn in {"neg": lambda y: -y, "sq": lambda y: y * y}.items():
        jax.jit(fn)(x)
""",
        # Rebuilt only when a flag the guarded body clears is set again.
        """
import functools
import jax
def update(state, n):
    return state
def train(state, sizes):
    n, stale = 1, True
    for size in sizes:
        if size != n:
            n, stale = size, True
        if stale:
            step = jax.jit(functools.partial(update, n=n))
            stale = False
        state = step(state)
""",
        # A `@jax.jit` local def returned (built once per factory call), and one in a
        # function called once.
        """
import jax
def make():
    @jax.jit
    def step(x):
        return x * 2
    return step
def once(x):
    @jax.jit
    def inner(y):
        return y + 1
    return inner(x)
steps = [make() for _ in range(3)]
once(1.0)
""",
        # A module-level function: the cache is keyed on it, one compile.
        """
import jax
def g(x):
    return x * 2
for i in range(10):
    y = jax.jit(g)(x)
""",
        # A factory: the jitted function is returned and reused by the caller.
        """
import jax
from functools import partial
def make_step(cfg):
    return jax.jit(partial(update, cfg=cfg))
""",
        # Built once per item and stored: each is compiled once.
        """
import jax
from functools import partial
fns = {}
for name in names:
    fns[name] = jax.jit(partial(apply, name=name))
""",
        # Built once at module level, outside any loop.
        """
import jax
double = jax.jit(lambda x: x * 2)
""",
        # Hoisted out of the loop.
        """
import jax
def run(xs):
    step = jax.jit(lambda x: x + 1)
    out = []
    for x in xs:
        out.append(step(x))
    return step, out
""",
        # The loop's calls leave `axis` at its None default, so they take the first branch,
        # the jit of a module-level function (cached); the jit of a new `vmap` wrapper runs
        # only from the call after the loop, and so does the method's, which the loop calls
        # with `batched=False`.
        """
import jax
def forward(x, table):
    return x * table
def compare(x, tables, axis=None):
    if axis is None:
        fn = jax.jit(forward)
    else:
        fn = jax.jit(jax.vmap(forward, in_axes=(None, axis)))
    return fn(x, tables)
class Runner:
    def run(self, x, table, batched=True):
        if not batched:
            return forward(x, table)
        return jax.jit(jax.vmap(forward))(x, table)
    def sweep(self, x, tables):
        for t in tables:
            compare(x, t)
            self.run(x, t, batched=False)
        return compare(x, tables, axis=0), self.run(x, tables)
""",
        # Jitted once per call of `evaluate`, which nothing here calls in a loop (a script's
        # main, a test): one compile per run, and it is then reused in the loop.
        """
import jax
from functools import partial
def evaluate(params, batches, net):
    loss = jax.jit(partial(compute_loss, net=net))
    return [loss(params, b) for b in batches]
""",
        """
import jax
def test_double():
    assert jax.jit(lambda x: 2 * x)(1.0) == 2.0
""",
        # The local function is defined once, before the loop: the same object each time.
        """
import jax
def train(params, batches):
    def step(p, b):
        return p
    for b in batches:
        params = jax.jit(step)(params, b)
    return params
""",
        # A parameter: unknown identity.
        """
import jax
def run(fn, xs):
    for x in xs:
        jax.jit(fn)(x)
""",
        # A staticmethod reached through self is the same function each time.
        """
import jax
class Model:
    @staticmethod
    def f(x):
        return x
    def run(self, xs):
        for x in xs:
            jax.jit(self.f)(x)
""",
        # A jitted `train_step` runs its body once per trace: the inner jit is inlined. A
        # method no contract names, called once.
        """
import jax
class Trainer:
    @jax.jit
    def train_step(self, x):
        return jax.jit(lambda y: y + 1)(x)
    def setup(self, x):
        return jax.jit(lambda y: y * 2)(x)
""",
        # Not jax's jit.
        """
from numba import jit
for i in range(3):
    jit(lambda x: x)(i)
""",
    )
    INVALID = (
        # Data batches, also inside a grid of configurations: the same closure is jitted
        # again for every batch (a comprehension over them too).
        """
import jax
DTYPES = ("float32", "bfloat16")
def cast(x, dtype):
    return jax.jit(lambda y: y.astype(dtype) + 1)(x)  # error: JIT113
def train(params, batches):
    for batch in batches:
        params = jax.jit(lambda p, b: p - 0.1 * b.mean())(params, batch)  # error: JIT113
    for dtype in DTYPES:
        for batch in batches:
            jax.jit(lambda y: y.astype(dtype))(batch)  # error: JIT113
        [jax.jit(lambda y: y.astype(dtype))(b) for b in batches]  # error: JIT113
    for batch in batches:
        cast(batch, "float32")
    return params
""",
        # The same functions called in a loop with literal arguments that take the branch
        # of the jit: a new wrapper compiled per pass.
        """
import jax
def forward(x, table):
    return x * table
def compare(x, tables, axis=None):
    if axis is None:
        fn = jax.jit(forward)
    else:
        fn = jax.jit(jax.vmap(forward, in_axes=(None, axis)))  # error: JIT113
    return fn(x, tables)
def scale(x, table, batched):
    if not batched:
        return forward(x, table)
    return jax.jit(jax.vmap(forward))(x, table)  # error: JIT113
def sweep(x, tables):
    for t in tables:
        compare(x, t, axis=0)
        scale(x, t, True)
""",
        # A value the model does not know may take either branch.
        """
import jax
def forward(x, table):
    return x * table
def compare(x, tables, axis=None):
    if axis is None:
        return jax.jit(forward)(x, tables)
    return jax.jit(jax.vmap(forward, in_axes=(None, axis)))(x, tables)  # error: JIT113
def sweep(x, tables, settings):
    for t in tables:
        compare(x, t, axis=settings.axis)
""",
        # The same closures over a loop that counts steps, or one over a written-out list
        # whose variable the function does not read: the same function each pass.
        """
import jax
def norm(x, scale):
    return (x * scale).sum()
def fit(coords):
    for step in range(100):
        fn = lambda x: norm(x, scale=step)
        jax.jit(jax.grad(fn))(coords)  # error: JIT113
    for intor in ["ovlp", "kin"]:
        jax.jit(lambda x: norm(x, 2.0))(coords)  # error: JIT113
""",
        # A once-only loop inside one that repeats, and a loop whose `break` is
        # conditional: both repeat the jit.
        """
import jax
def run(x, passes):
    for _ in range(passes):
        for item in [x]:
            x = jax.jit(lambda y: y * 2)(item)  # error: JIT113
    while True:
        x = jax.jit(lambda y: y + 1)(x)  # error: JIT113
        if x.sum() > 0:
            break
    return x
""",
        # A range value read as data (a step count), arrays of the same shape each pass,
        # an `enumerate` index used as a number or in a branch test (two programs, yet a
        # compile per pass), arrays unpacked from `zip`, and sweeps
        # whose jitted function reads none of the configuration.
        """
import functools
import itertools
import jax
import jax.numpy as jnp
def scale(y, factor):
    return y * factor
def helper(y):
    return y * 2
def run(x, sizes, table):
    data = jnp.ones((4, 2))
    for n in range(1, 4):
        jax.jit(functools.partial(scale, factor=n))(x)  # error: JIT113
        batch = data[n]
        jax.jit(lambda y: y + batch)(x)  # error: JIT113
        x = jnp.tanh(x)
        buf = jnp.zeros(x.shape)
        jax.jit(lambda y: y + buf)(x)  # error: JIT113
    for i, size in enumerate(sizes):
        jax.jit(lambda y: y * i)(x)  # error: JIT113
        jax.jit(lambda y: y * 2 if i > 1 else y)(x)  # error: JIT113
    for xb, yb in zip(data, data):
        jax.jit(lambda y: y * xb - yb)(x)  # error: JIT113
    for lr, width in itertools.product([0.1, 0.01], [2, 3]):
        jax.jit(lambda y: helper(y))(x)  # error: JIT113
    for name, fn in table.items():
        jax.jit(lambda y: helper(y))(x)  # error: JIT113
""",
        # A function called in a loop jits a closure over an array argument the loop
        # changes (it should be an argument), and the same function in a comprehension
        # whose passes give it the same array; a periodic evaluation is still per pass.
        """
import jax
import jax.numpy as jnp
def evaluate(state, obs):
    @jax.jit  # error: JIT113
    def policy(o):
        return state * o
    return policy(obs)
def main(obs, keys):
    state = jnp.zeros(3)
    for i in range(10):
        state = jnp.tanh(state + 1.0)
        evaluate(state, obs)
        if i % 5 == 0:
            jax.jit(lambda o: o * state)(obs)  # error: JIT113
    return [evaluate(state, k) for k in keys]
""",
        # Step counts are no configuration: an `enumerate` index, a counter the loop adds
        # to; nor is an object the loop stores arrays into (`self.w = ...`).
        """
import functools
import jax
import jax.numpy as jnp
def f(x, step):
    return x * step
def run(x, loader):
    for i, batch in enumerate(loader):
        x = jax.jit(functools.partial(f, step=i))(batch)  # error: JIT113
    n = 0
    while n < 10:
        n += 1
        x = jax.jit(lambda y: y * n)(x)  # error: JIT113
    return x
class Trainer:
    def __init__(self):
        self.w = jnp.ones(3)
    def update(self, w):
        return w * 0.5
    def fit(self, epochs):
        for _ in range(epochs):
            self.w = jax.jit(self.update)(self.w)  # error: JIT113
""",
        # A bound method of an instance, and a `@jax.jit` local def in a method called in a
        # loop through the instance.
        """
import jax
class Sim:
    def step(self, u):
        return u * 2
    def act(self, x):
        @jax.jit  # error: JIT113
        def inner(y):
            return y + 1
        return inner(x)
sim = Sim()
u = 1.0
for _ in range(3):
    u = jax.jit(sim.step)(u)  # error: JIT113
    u = sim.act(u)
""",
        """
import jax
for i in range(10):
    y = jax.jit(lambda x: x * 2)(x)  # error: JIT113
""",
        """
import jax
from functools import partial
def loss(p, batch, scale):
    return p
def train(params, batches):
    for batch in batches:
        params = jax.jit(partial(loss, scale=2.0))(params, batch)  # error: JIT113
    return params
""",
        # The captured value that changes per call is an array: it should be an argument.
        """
import jax
import jax.numpy as jnp
def predict(params, x):
    def forward(p):
        return p * x
    return jax.jit(forward)(params)  # error: JIT113
def evaluate(params):
    xs = jnp.ones((4, 3))
    return [predict(params, x) for x in xs]
""",
        """
from jax import jit, vmap
def f(x):
    return x
class Runner:
    def batched(self, xs):
        fast = jit(vmap(f))  # error: JIT113
        return fast(xs)
    def run(self, data):
        for xs in data:
            self.batched(xs)
""",
        """
import jax
import numpy as np
def train(params):
    batches = np.zeros((10, 3))
    for b in batches:
        def step(p):
            return p + b
        params = jax.jit(step)(params)  # error: JIT113
""",
        """
import jax
class Trainer:
    def step(self, x):
        return x
    def fit(self, xs):
        for x in xs:
            x = jax.jit(self.step)(x)  # error: JIT113
""",
        # Called repeatedly by contract, with no loop in sight (jax-ml/jax#4645): an agent's
        # action method, a model's `predict` jitting a bound method per call.
        """
import jax
class Agent:
    def net(self, params, obs):
        return params * obs
    def take_action(self, obs):
        @jax.jit  # error: JIT113
        def _act(params, obs):
            return self.net(params, obs)
        return _act(self.params, obs)
class Model:
    def apply(self, x):
        return x * 2
    def predict(self, x):
        return jax.jit(self.apply)(x)  # error: JIT113
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args:
            return
        path = self.ctx.path_to(node)
        app = self.ctx.jit.from_call(node, path)
        if app is None:
            return
        repetition = local_repetition(path)
        if repetition is None:
            return
        kind = self._fresh_function(node.args[0].value, path, repetition.unit)
        if kind is None or not self._called_here(node, path):
            return
        where = self._where(repetition, path)
        if where is None:
            return  # once per call of a function nothing calls repeatedly
        if self._per_configuration(node.args[0].value, path, repetition):
            return
        found: NodeFix | str = ""
        if repetition.kind == "loop":
            from jitlint.fixes.hoist_fix import hoist_fix_or_reason

            found = hoist_fix_or_reason(self.ctx, node, path, self._names_taken)
        if not isinstance(found, NodeFix):
            # Built once per call of the function or method instead (module level or
            # `__init__`); a loop's own reason comes first.
            from jitlint.fixes.hoist_fix import base_name
            from jitlint.fixes.hoisting.out import hoist_call_fix_or_reason

            out = hoist_call_fix_or_reason(
                self.ctx, node, path, self._new_names, base_name(node, path)
            )
            found = out if isinstance(out, NodeFix) else (found or out)
        fix, no_fix = (
            (None, f"; no automatic fix: {found}") if isinstance(found, str) else (found, "")
        )
        self.report(
            node,
            f"`jax.jit` of {kind} {where}: the function object is new each time, so jit's "
            "cache misses and it traces and compiles again on every run",
            help="build the jitted function once (at module level or before the loop) and "
            f"pass changing values as arguments{no_fix}",
            fix=fix,
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """`@jax.jit` on a local function: a new function object each time its `def` runs."""
        if not node.decorators:
            return
        path = self.ctx.path_to(node)
        app = self.ctx.jit.from_decorators(node, path)
        if app is None:
            return
        repetition = local_repetition(path)
        if repetition is None:
            return
        scope = _enclosing_scope(path)
        calls = 0
        for use, use_parent in _name_uses(scope, node.name.value):
            if use is node.name:
                continue
            if isinstance(use_parent, cst.Call) and use_parent.func is use:
                calls += 1
            else:
                return  # returned, stored, passed on: built once and reused
        where = self._where(repetition, path)
        if not calls or where is None or self._per_configuration(node, path, repetition):
            return
        fix: NodeFix | str = "it is defined inside a loop"
        if repetition.function is not None:
            from jitlint.fixes.hoisting.out import move_def_fix_or_reason

            fix = move_def_fix_or_reason(self.ctx, node, path, self._new_names[1])
        no_fix = f"; no automatic fix: {fix}" if isinstance(fix, str) else ""
        self.report(
            app.node,
            f"`jax.jit` of the local function `{node.name.value}`, defined {where}: the "
            "function object is new each time, so jit's cache misses and it traces and "
            "compiles again on every run",
            help="define the jitted function once (at module level or before the loop) and "
            f"pass changing values as arguments{no_fix}",
            fix=fix if isinstance(fix, NodeFix) else None,
        )

    @cached_property
    def _names_taken(self) -> set[str]:
        """Names a hoisting fix must not choose: the module's, and those already chosen."""
        from jitlint.fixes.hoist_fix import names_in

        return names_in(self.ctx.module)

    @cached_property
    def _new_names(self) -> tuple[set[str], set[str]]:
        """Names and attribute names a fix out of a function must not choose."""
        from jitlint.fixes.hoisting.scope import attribute_names

        return self._names_taken, attribute_names(self.ctx.module)

    def _per_configuration(
        self, built: cst.CSTNode, path: Sequence[cst.CSTNode], repetition: Repetition
    ) -> bool:
        """Each repetition builds a different function on purpose, so a compile per pass is
        needed: what it captures changes between passes and is Python configuration (or the
        model cannot tell: unknown is never reported), or each pass is another element of a
        written-out grid of configurations it captures (`for dtype in ["float32",
        "bfloat16"]:`), or it is rebuilt only when an `if` in the loop sees a setting change.
        A captured array or step count that changes should have been an argument: the
        hazard stays."""
        captures = self.ctx.captures
        if captures.recompile_guard(path) or captures.per_grid(built, path, repetition):
            return True
        varying = captures.varying(built, path, repetition)
        return varying is not None and any(c.configuration for c in varying)

    def _where(self, repetition: Repetition, path: Sequence[cst.CSTNode]) -> str | None:
        """Where the code at the end of `path` repeats, for the message; None when it runs
        once per call of a function that nothing calls repeatedly (a script's main, a test),
        or that only calls which cannot reach it repeat."""
        func = repetition.function
        if func is None:
            return repetition.where
        why = self.ctx.repeated.repeats_at(func, path)
        return None if why is None else f"on every call of `{func.name.value}`, which is {why}"

    def _fresh_function(
        self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode], unit: cst.CSTNode
    ) -> str | None:
        """What `expr` is if it makes a new function object each time `unit` (the loop,
        comprehension or function body that repeats) runs; None otherwise."""
        if isinstance(expr, cst.Lambda):
            return "a lambda"
        if isinstance(expr, cst.Call):
            names = self.ctx.names.qualified_names(expr.func, path)
            if names and names <= PARTIAL:
                return "a new `functools.partial`"
            if names and names <= fresh_wrappers():
                return f"a new `{self.ctx.module.code_for_node(expr.func)}(...)` wrapper"
            return None
        if isinstance(expr, cst.Name):
            found = self.ctx.names.lookup_with_path(expr.value, path)
            if found is None or len(found[0]) != 1:
                return None
            binding, scope_path = found[0][0], found[1]
            owner = scope_path[-2] if len(scope_path) >= 2 else None
            if not isinstance(owner, cst.FunctionDef | cst.Lambda):
                return None  # module- or class-level: the same object every time
            if binding.node is None or not contains(unit, binding.node):
                return None  # defined outside the repeating code: the same object each time
            if binding.kind == "def":
                return f"the local function `{expr.value}`"
            if binding.kind == "assign" and isinstance(binding.node, cst.Lambda):
                return f"the local lambda `{expr.value}`"
            return None
        if isinstance(expr, cst.Attribute) and not (
            isinstance(expr.value, cst.Name) and expr.value.value == "self"
        ):
            # `jax.jit(sim.step)`: the model knows `sim` is an instance of the file's class,
            # and each attribute access makes a new bound method.
            trace = self.ctx.tracing.any_function_at(path)
            value = trace.value(expr) if trace is not None else None
            if isinstance(value, BoundMethod) and isinstance(value.receiver, Object):
                return f"the bound method `{self.ctx.module.code_for_node(expr)}`"
            return None
        if (
            isinstance(expr, cst.Attribute)
            and isinstance(expr.value, cst.Name)
            and expr.value.value == "self"
        ):
            cls = _enclosing_class(path)
            if cls is None:
                return None
            for statement in _body(cls.body):
                if (
                    isinstance(statement, cst.FunctionDef)
                    and statement.name.value == expr.attr.value
                ):
                    if any(
                        self.ctx.names.resolves_to(d.decorator, path, STATICMETHOD)
                        or _is_name(d.decorator, "classmethod", "property")
                        for d in statement.decorators
                    ):
                        return None
                    return f"the bound method `self.{expr.attr.value}`"
        return None

    def _called_here(self, node: cst.Call, path: Sequence[cst.CSTNode]) -> bool:
        """The jitted result is used only by calling it, in the same function or loop."""
        parent = path[-2]
        if isinstance(parent, cst.Call) and parent.func is node:
            return True
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
            return False
        target = parent.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        scope = _enclosing_scope(path)
        calls = 0
        for use, use_parent in _name_uses(scope, target.value):
            if use is target:
                continue
            if isinstance(use_parent, cst.Call) and use_parent.func is use:
                calls += 1
            elif not (isinstance(use_parent, cst.AssignTarget) and use_parent.target is use):
                return False  # returned, stored, passed on: built once and reused
        return calls > 0


def _enclosing_scope(path: Sequence[cst.CSTNode]) -> cst.CSTNode:
    for node in reversed(path[:-1]):
        if isinstance(node, cst.FunctionDef | cst.Module):
            return node.body if isinstance(node, cst.FunctionDef) else node
    return path[0]


def _enclosing_class(path: Sequence[cst.CSTNode]) -> cst.ClassDef | None:
    for index in range(len(path) - 1, 1, -1):
        if isinstance(path[index], cst.FunctionDef) and isinstance(path[index - 2], cst.ClassDef):
            return path[index - 2]  # type: ignore[return-value]
    return None


def _name_uses(root: cst.CSTNode, name: str):
    """(Name node, its parent) for every `name` under `root`, not inside nested defs that
    rebind nothing (closures see the same object, so their uses count too)."""
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        if type(node) is cst.Name and node.value == name:  # type: ignore[attr-defined]
            yield node, parent
            continue
        stack.extend((child, node) for child in iter_children(node))


def _body(block: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return block.body if isinstance(block, cst.IndentedBlock) else ()


def _is_name(expr: cst.BaseExpression, *names: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value in names
