from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import TRACED
from jitlint.model.jax.api import CONCRETIZATION_ERRORS, TRACER_ERROR_CATCHERS
from jitlint.model.jax.tracing import FunctionTrace, Value, snippet
from jitlint.model.library.jax_facts import builtin_twin
from jitlint.python.builtins_facts import (
    COMPARING_BUILTINS,
    ITERATING_BUILTINS,
    TRUTH_TEST,
    builtin_name,
)
from jitlint.rules.base import JAX_TRACING, Rule

_TESTS = (cst.If, cst.While, cst.Assert, cst.IfExp)
_CHOICE_HELP = (
    "use `jnp.where`/`lax.select` to choose values, `lax.cond`/`lax.while_loop` for control "
    "flow, or make a flag parameter static (`static_argnames`)"
)
# Validation (`assert`, `if ...: raise`) is a case of this rule, not a rule of its own: the
# same error, raised by the same conversion; only the remedy differs.
_CHECK_HELP = (
    "a check on a traced value has to run when the compiled code runs: "
    "`x = eqx.error_if(x, bad, msg)` (equinox) or `checkify.check(ok, msg)` under "
    "`checkify.checkify`; or check only static facts here (shapes, dtypes, Python arguments) "
    "and the values before calling the jitted function"
)


class TracedBool(Rule):
    """
    ## What it does
    Finds Python code that converts a traced value to `bool` inside a function JAX traces
    (`jax.jit`, `vmap`, `pmap`, `lax` loop and branch bodies, ...): an `if`, `elif`,
    `while` or `assert` test, a conditional expression, `and`/`or`/`not`, `bool(...)`,
    `in`, a chained comparison (`0 < x < 1` is `(0 < x) and (x < 1)`), and the builtins
    `max`, `min`, `any`, `all` and `sorted` on traced arrays.

    Validation, an `assert` or an `if <traced test>: raise ...`, is a case of this rule
    with its own advice (issue #30 called it JIT121; it stays here because the error, the
    cause and the place are the same, and one finding per line keeps `noqa: JIT101`
    meaning what it did): the check has to run when the compiled code runs
    (`eqx.error_if`, `checkify.check`) or test only static facts.

    ## Why is this bad
    Under `jax.jit` an argument is an abstract tracer: it has a shape and a dtype but no
    value, so Python cannot decide which branch to take. Tracing stops with:

    ```text
    jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array
    with shape bool[].
    ```

    Results of `jnp`/`lax` operations are tracers too, even when their inputs are
    constants. Under `jax.grad` alone (no `jit` or `vmap`) values stay concrete and Python
    branching works, so the rule stays silent there.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def relu_total(x):
        return max(x.sum(), 0.0)  # error: JIT101


    relu_total(jnp.arange(3.0))
    ```

    The same error comes from `if x.sum() > 0:`, `while`, `assert`, `a if c else b`,
    `and`/`or`/`not` and `1.0 in x` on traced values.

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def relu_total(x):
        return jnp.maximum(x.sum(), 0.0)


    relu_total(jnp.arange(3.0))
    ```

    To choose between values use `jnp.where(c, a, b)` or `lax.select`; for control flow
    use `lax.cond`/`lax.switch`/`lax.while_loop`; for a configuration flag, make the
    parameter static (`static_argnames=("flag",)`).

    ## Fix safety
    Builtin `max(a, b)`/`min(a, b)` on traced values are rewritten to
    `jnp.maximum(a, b)`/`jnp.minimum(a, b)`. The fix is unsafe: the result becomes an array
    (a Python scalar before, where the code ran at all), and NaN handling differs.

    A two-way choice of one value is rewritten: `A if c else B`, `if c: return A` /
    `else: return B`, `if c: return A` followed directly by `return B`, and
    `if c: y = A` / `else: y = B` (one assignment to the same name in each branch).

    - An `if` statement whose branch is a computation becomes
      `lax.cond(c, lambda: A, lambda: B)` (`return ...` or `y = ...`). A computation calls
      something other than a `jax.numpy` function, a builtin or a method of a traced array:
      `f(x)`, `model.apply(x)`, `jax.nn.relu(x)`. Only the taken branch runs and is
      differentiated. Unsafe: both branches are still traced, so they must return the same
      shapes and dtypes (`cond branches must have equal output types` otherwise), and `c`
      must be a scalar.
    - Everything else becomes `jnp.where(c, A, B)`: plain values and array math, every
      conditional expression, and branches where one side is a bare literal such as `0.0`
      (which `lax.cond` would reject for a shape mismatch). Unsafe: `jnp.where` evaluates
      both values (a branch that raises or is expensive now always runs), broadcasts them to
      one shape, and computes gradients through both.

    A branch that is a tuple, dict or list display gets `lax.cond` (it returns pytrees;
    `jnp.where` would stack them into one array). Comments in the rewritten statements are
    kept on their own lines above the new one.

    Neither rewrite is offered when the test or a branch has a Python side effect the analysis
    sees (`print`, `list.append`, logging, the clock, Python or NumPy random numbers, `:=`):
    both rewrites trace both branches, so it would run for the branch not taken too. Nor when
    the test converts a tracer itself (`a > 0 and b > 0`, `not`), the assigned name is
    `global`/`nonlocal`, a branch is not an array (a string, `None`, a set, a lambda) or holds
    another statement, an operand spans several lines, or it is an `elif` whose `if` branch is
    not a single `return` (the rewrite would then also run after that branch); the finding's
    help then says which. A chain of returns through `elif` becomes nested rewrites, one per
    pass.

    A parameter used directly as a flag (`if training:` with `training: bool`) gets an
    unsafe fix adding it to `static_argnames` of the `jax.jit` that compiles the function:
    it then compiles once per value, and callers must pass a Python value. Where the jit
    gives a literal `static_argnums` and no `static_argnames` (`partial(jax.jit,
    static_argnums=0)` on a method), the parameter's position joins `static_argnums`
    instead, so JAX still infers the names from the numbers. So does a
    parameter ordered against a number literal (`if num_warmup < 20:`, also in an `assert`
    or `while`) when no `jnp.where`/`lax.cond` rewrite applies, and `not flag` outside a
    test; unsafe in the same way, and an array passed there now fails to hash.

    A field of an equinox Module of the same file, declared with a Python scalar type and
    tested in a method (`if self.training:`, `if self.rate > 0:`), is declared static:
    `rate: float = eqx.field(static=True)`. Unsafe: one compilation per value, and the
    field can no longer hold a traced value.

    A flag of a linen Module's `__call__` traced because a lifted `nn.checkpoint`/`nn.remat`/
    `nn.jit` of this file lists the position just before it in `static_argnums` (the numbers
    were counted without the module, which is argument 0) gets every number shifted by one:
    `static_argnums=(1,)` -> `(2,)`. Unsafe: the parameter that number named is traced again.

    An `if c:` without `else` whose body only reassigns names bound before it
    (`mean = ...` on one line each, no value a Python number the model knows, which would
    become an array) becomes one `name = jnp.where(c, value, name)` per
    assignment, the test bound to a new name first when there are several (`not t` written
    `jnp.logical_not(t)`): unsafe as `jnp.where`, every value is computed on both sides.

    An early `if c: return A` followed by plain one-line assignments and a final
    `return B` takes the same rewrite, with the assignments moved above it (only when they
    have no side effect and assign no name that `c` or `A` reads): unsafe as above, and the
    moved assignments now also run when the early return was taken.

    A validation `if <traced test>: raise E("message")` (no `else`, one line each) moves to
    run time as `x = eqx.error_if(x, <test>, "message")` (`not t` written
    `jnp.logical_not(t)`) when the module imports equinox and
    the test reads a parameter or local `x` that the function reads again afterwards:
    unsafe, the error is equinox's runtime error, not `E`, so `except E` around the call no
    longer catches it. Otherwise (a field in `__check_init__`, no equinox) the check is
    removed and kept in a comment, as for `assert`: unsafe, nothing checks it any more.

    A `while` on a traced test, directly in a function's body, becomes
    `jax.lax.while_loop(_while_cond, _while_body, carry)`, carrying the names its body
    assigns that are bound before the loop; `and`/`or`/`not` in the test become
    `jnp.logical_*`. Only a body of plain assignments is rewritten (no `break`, `continue`,
    `return`, nested functions, writes to attributes or items, and no name set in the body
    and read after the loop). Unsafe: each carried value must keep its shape and dtype
    across iterations, Python side effects in the body run once (at trace time), and
    reverse-mode differentiation through `lax.while_loop` is not supported.

    A chained comparison outside a test (`[x < 0, 0 < x < 1]` in `jnp.piecewise`, or the
    condition a `jnp.where` rewrite carried over) becomes `(0 < x) & (x < 1)`: element-wise
    on arrays, where Python's chain converts its first link to bool. Unsafe: the result is
    an array, not a bool, and the middle operands are read twice (only names, attributes and
    numbers are rewritten there).

    `not x` on a traced value whose result is used as a value (an argument, an assignment,
    a return), not tested, becomes `jnp.logical_not(x)`: unsafe, the result is a boolean
    array, element-wise where `x` has several elements (where `not` raised).

    `x or default` on a traced `x` becomes `(x if x is not None else default)`: unsafe, a
    falsy value that is not None (0) now stays instead of becoming the default. An `assert`
    on a traced value (alone on its line) becomes `pass` with the assert kept in a comment:
    unsafe, the program no longer checks it (`checkify` or `eqx.error_if` check at run time).

    ## Known problems
    A bare parameter (`if flag:`) is reported only when it is annotated `bool`, `int` or
    `float`: a non-static parameter may be a pytree such as a dict or `None`, whose truth
    value is fine. Values the analysis cannot follow (attributes of objects, results of
    functions from other modules) are not reported. Attributes it does follow are the
    fields of equinox Modules and flax struct dataclasses defined in the same file: fields
    declared static are static, array fields are traced, and `int`/`bool` fields are traced
    under `jax.jit` but static under `eqx.filter_jit`. After a guard such as
    `isinstance(n, int)` (in `and`, `if`, a conditional expression, or before an early
    `return`), `n` is a Python value, never a tracer. A test in the body of a `try` whose
    handler catches the error (`except jax.errors.ConcretizationTypeError:`, or a
    `TypeError`, `Exception` or bare `except:` handler that does not raise again) probes
    for a tracer on purpose and is not reported.
    """

    code = "JIT101"
    name = "traced-bool"
    summary = "A traced value is converted to a Python bool (if/while/assert/and/or/not...)."
    fix_availability = "sometimes"
    runtime_error = "TracerBoolConversionError"
    caught_by = CONCRETIZATION_ERRORS
    swallowed_by = TRACER_ERROR_CATCHERS
    requires = JAX_TRACING
    uses_tracing = True

    VALID = (
        # A generic base that is a plain class: no contract, the parameter stays unknown.
        """
from typing import Generic, TypeVar
import jax
T = TypeVar("T")
class Base(Generic[T]):
    pass
class Leaf(Base[T]):
    def __call__(self, x: jax.Array):
        if x.sum() > 0:
            return x
        return -x
""",
        # Every call of the jitted function leaves `n` out: it is its default, None, so the
        # `else` never runs under the trace (an annotation that allows an int changes nothing).
        """
import jax
from typing import Optional
def segments(x, n: Optional[int] = None):
    if n is None:
        n = x.shape[0]
    else:
        assert n == x.shape[0]
    return x.reshape(n, -1)
def run(x):
    segmented = jax.jit(segments)
    return segmented(x)
""",
        # Chained comparisons of static values.
        """
import jax
@jax.jit
def f(x):
    small = 0 < x.shape[0] < 4
    return x * 2 if small else x
""",
        # Shapes, ndim, dtypes and `is None` are static.
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x, y=None):
    if x.ndim == 2 and x.shape[0] > 2:
        x = x.T
    if y is None:
        y = x
    if x.dtype == jnp.float32:
        pass
    assert x.shape == y.shape
    return x + y
""",
        # A static flag.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="training")
def f(x, training):
    if training:
        return x * 0.5
    return x
""",
        # Python loops over static ranges; loop variables are static.
        """
import jax
@jax.jit
def f(x):
    total = 0.0
    for i in range(x.shape[0]):
        if i % 2 == 0:
            total = total + x[i]
    return total
""",
        # Under grad alone values are concrete: Python branching works.
        """
import jax
def loss(x):
    if x > 0:
        return x * x
    return -x
g = jax.grad(loss)
""",
        # Not traced at all.
        """
import jax.numpy as jnp
def f(x):
    if jnp.sum(x) > 0:
        return x
    return -x
""",
        # A dict pytree parameter's truth value and membership are fine.
        # (An annotated `flag: bool` is reported; see INVALID.)
        """
import jax
@jax.jit
def f(params, x):
    if params and "w" in params:
        x = x * params["w"]
    return x
""",
        # isinstance, len and closed-over Python values are static.
        """
import jax
SCALE = 2
@jax.jit
def f(xs):
    if isinstance(xs, tuple) and len(xs) > 1 and SCALE > 1:
        return xs[0]
    return xs
""",
        # jnp results inside ensure_compile_time_eval are concrete.
        """
import jax
import jax.numpy as jnp
import numpy as np
G = np.arange(3.0)
@jax.jit
def f(x):
    with jax.ensure_compile_time_eval():
        positive = jnp.sum(G) > 0
        if positive:
            return x
    return -x
""",
        # Guards narrow: no tracer is an `int`, so where `isinstance(g, int)` holds, `g` is a
        # Python value (jax/_src/pallas/mosaic/pipeline.py), also after an early exit.
        """
import jax
from jax import lax
def filter_indices(indices, grid):
    return tuple(0 if isinstance(g, int) and g == 1 else i for i, g in zip(indices, grid))
def body(step, carry):
    indices, grid = carry
    return filter_indices(indices, grid), grid
lax.fori_loop(0, 4, body, ((0, 0), (2, 3)))
""",
        """
import jax
@jax.jit
def f(x, n: int, k: int):
    if not isinstance(n, int):
        raise TypeError("n must be a Python int")
    if n > 1:
        x = x * n
    scale = 2 if type(k) is int and k > 1 else 1
    return x * scale
""",
        # Static fields of a pytree class, and non-array leaves under `eqx.filter_jit`.
        """
import equinox as eqx
import jax
class MLP(eqx.Module):
    w: jax.Array
    use_bias: bool
    depth: int = eqx.field(static=True)
    @eqx.filter_jit
    def __call__(self, x):
        for _ in range(self.depth):
            x = x @ self.w
        if self.use_bias and self.depth > 1:
            x = x + 1
        return x
""",
        # `jit` is numba's here.
        """
from numba import jit
@jit
def f(x):
    if x > 0:
        return x
    return -x
""",
        # Probing for a tracer on purpose (haiku's dropout): the error is caught.
        """
import jax
@jax.jit
def dropout(rate, x):
    try:
        if rate == 0.0:
            return x
    except jax.errors.ConcretizationTypeError:
        pass
    return x / (1.0 - rate)
""",
        # The same probe with a handler for any error (a tracer's bool conversion error is a
        # TypeError): it does not raise again, so the traced path is the handler's.
        """
import jax
@jax.jit
def dropout(rate, x):
    try:
        if rate == 0.0:
            return x
    except Exception:
        pass
    try:
        if rate < 0:
            raise ValueError(rate)
    except:  # noqa: E722
        return x
    return x / (1.0 - rate)
""",
        # Under vmap alone (nothing stages it) a jnp result of constants is a concrete array:
        # the test runs in Python [observed on jax 0.10.2].
        """
import jax
import jax.numpy as jnp
@jax.vmap
def f(x):
    scale = jnp.float32(2.0)
    if not scale > 1:
        return x
    return x * scale
""",
        # A `@jax.jit` def's defaults that its calls leave out, pass None (a pytree with no
        # leaves) or name in `static_argnames` stay Python values.
        """
import jax
from functools import partial
@jax.jit
def sample(x, *, temperature=0.0):
    if temperature > 0.0:
        return x / temperature
    return x
@jax.jit
def scaled(x, scale=None):
    if scale:
        return x * scale
    return x
@partial(jax.jit, static_argnames="training")
def dropout(x, training=False):
    if training:
        return x * 0.5
    return x
def run(x):
    return sample(x), scaled(x, None), dropout(x, training=True)
""",
        # A public method of an equinox module that drives a step the class compiles itself
        # (through another method, on a name bound to `self`) is the Python training loop,
        # not code its users call under jit (flowMC's `NFModel.train`).
        """
import equinox as eqx
import jax
import jax.numpy as jnp
class Flow(eqx.Module):
    weight: jax.Array
    @eqx.filter_jit
    def train_step(self, x: jax.Array):
        return jnp.mean((x * self.weight) ** 2), self
    def train_epoch(self, batches: jax.Array):
        model = self
        for batch in batches:
            loss, model = model.train_step(batch)
        return loss, model
    def train(self, data: jax.Array, num_epochs: int):
        losses = jnp.zeros(num_epochs)
        best_model = model = self
        best_loss = 1e9
        for epoch in range(num_epochs):
            loss, model = model.train_epoch(data)
            losses = losses.at[epoch].set(loss)
            if losses[epoch] < best_loss:
                best_model, best_loss = model, losses[epoch]
        return best_model, losses
""",
        # A helper run only under `if render:`, a jit parameter left at its falsy default:
        # given, `render` is a tracer and the test itself fails, so the loop is never traced.
        """
from functools import partial
import jax
import jax.numpy as jnp
def settle(board):
    old = board + 1
    while not jnp.all(old == board):
        old = board
    return board
@partial(jax.jit, static_argnums=(1,))
def reset(board, size, render=False):
    if render:
        board = settle(board)
    return board * size
""",
        # The traced call passes a grid: `and` stops at `grid is None`, the conversion on its
        # right never runs under the trace.
        """
import jax
import jax.numpy as jnp
def solar(x, grid=None):
    if grid is None and jnp.any(x <= 0.0):
        raise ValueError("x too small")
    return x * 2
f = jax.jit(lambda x: solar(x, grid="g"))
""",
        # `jax.config.jax_disable_jit` is True only where jit is off, and then jit and
        # `lax.map` run eagerly: under the trace the debug branch is skipped (directly, or
        # through a name bound to the flag).
        """
import jax
import jax.numpy as jnp
def blocks(x):
    h = jnp.sin(x)
    if jax.config.jax_disable_jit:
        assert not jnp.any(jnp.isnan(h))
    disabled = jax.config.jax_disable_jit
    if disabled and x.ndim > 0:
        assert jnp.all(h < 2)
    return h
step = jax.jit(lambda xs: jax.lax.map(blocks, xs))
""",
        # `set(d)` of a traced dict holds its keys, the pytree's static structure, and a set
        # holds no tracer (hashing one raises): its truth value is its length
        # (f1tenth_gym_jax's `batchify` under lax.scan, fesom_jax's `build_params` under jit).
        """
import jax
import jax.numpy as jnp
def batchify(x, agents):
    missing = set(agents) - set(x)
    if missing:
        raise ValueError(f"missing {sorted(missing)}")
    return jnp.stack([x[a] for a in agents])
def body(carry, _):
    return carry, batchify({"p": carry, "q": carry}, ["p", "q"])
out = jax.lax.scan(body, jnp.ones(2), None, length=2)
@jax.jit
def step(obs):
    unknown = {k for k in obs} - frozenset({"p", "q"})
    if unknown:
        raise ValueError("unknown keys")
    return batchify(obs, ["p", "q"])
""",
        # Run alone, a file cannot read what its project's other modules define: an imported
        # function used as a test of `ok` may be a tracer test (numpyro's `not_jax_tracer`),
        # so what it guards is not reported (the project pass reads the predicate itself).
        """
import jax
import jax.numpy as jnp
from jax import device_get
from mypkg.util import not_tracer
def find(x):
    ok = jnp.isfinite(x).all()
    if not_tracer(ok):
        if device_get(ok):
            return x
    return x * 2
run = jax.jit(find)
""",
        # A helper that takes a dict of arrays or one array tells them apart by an attribute
        # no JAX array has: under `hasattr(x, "items")` it is the dict, and sorting its items
        # is Python work, even where the caller's annotation says array (jaxrl2's MLP).
        """
import flax.linen as nn
import jax
import jax.numpy as jnp
def flatten(x):
    if hasattr(x, "items"):
        return jnp.concatenate([flatten(v) for _, v in sorted(x.items())], -1)
    return x
class Net(nn.Module):
    @nn.compact
    def __call__(self, x: jnp.ndarray) -> jnp.ndarray:
        return nn.Dense(3)(flatten(x))
""",
    )
    INVALID = (
        # A module's `__call__` that jits a method of its own instance and calls it: read in
        # Python, as a driver, it still traces the helper it compiles.
        """
import equinox as eqx
import jax
import jax.numpy as jnp
class Gate(eqx.Module):
    weight: jax.Array
    def _apply(self, x):
        if jnp.sum(x) > 0:  # error: JIT101
            return x * self.weight
        return x
    def __call__(self, x: jax.Array):
        return eqx.filter_jit(self._apply)(x)
""",
        # The same loop in a method that compiles nothing it calls: the public-method
        # contract traces it.
        """
import equinox as eqx
import jax
import jax.numpy as jnp
class Flow(eqx.Module):
    weight: jax.Array
    def step(self, x: jax.Array):
        return jnp.mean((x * self.weight) ** 2)
    def fit(self, data: jax.Array, num_epochs: int):
        losses = jnp.zeros(num_epochs)
        best_loss = 1e9
        for epoch in range(num_epochs):
            losses = losses.at[epoch].set(self.step(data))
            if losses[epoch] < best_loss:  # error: JIT101
                best_loss = losses[epoch]
        return losses
""",
        # A generic base, `Base[T]`, is the class `Base`: the subclass is an equinox module
        # too, and its `__call__` is traced by contract.
        """
from typing import Generic, TypeVar
import equinox as eqx
import jax
T = TypeVar("T")
class Base(eqx.Module, Generic[T]):
    pass
class Leaf(Base[T]):
    def __call__(self, x: jax.Array):
        if x.sum() > 0:  # error: JIT101
            return x
        return -x
""",
        # An equinox module's `__call__` is traced by contract (its users call it under
        # jit), and so is the helper method it calls; with no call site in the run.
        """
import equinox as eqx
import jax
class Gate(eqx.Module):
    weight: jax.Array
    def _positive(self, y):
        return y.sum() > 0
    def __call__(self, x: jax.Array):
        if x.mean() > 0:  # error: JIT101
            x = -x
        if self._positive(x * self.weight):  # error: JIT101
            return x
        return -x
""",
        # The same function with a call that passes `n`: jit traces it.
        """
import jax
from typing import Optional
def segments(x, n: Optional[int] = None):
    if n is None:
        n = x.shape[0]
    else:
        assert n == x.shape[0]  # error: JIT101
    return x.reshape(x.shape[0], -1)
def run(x):
    segmented = jax.jit(segments)
    return segmented(x), segmented(x, 2)
""",
        # A chained comparison converts every link but the last to bool.
        """
import jax
import jax.numpy as jnp
def ramp(x):
    return jnp.piecewise(x, [x < 0, 0 < x < 1], [0.0, lambda v: v, 1.0])  # error: JIT101
ramp_jit = jax.jit(ramp)
""",
        """
import jax
@jax.jit
def f(x):
    if x > 0:  # error: JIT101
        return x
    return -x
""",
        """
from jax import jit
import jax.numpy as jnp
@jit
def f(x, n):
    while n > 0:  # error: JIT101
        n = n - 1
    assert jnp.all(x > 0)  # error: JIT101
    y = x if x.sum() > 1 else -x  # error: JIT101
    return y
""",
        # Helpers called from traced code are traced, with their arguments.
        """
import jax
def helper(a, scale):
    if a.mean() > scale:  # error: JIT101
        return a
    return a * scale
@jax.jit
def f(x):
    return helper(x, 2.0)
""",
        # lax bodies (lambdas and local functions) are traced even outside jit.
        """
from jax import lax
import jax.numpy as jnp
def run(x):
    def body(i, carry):
        if carry > 10:  # error: JIT101
            return carry
        return carry + i
    flip = lambda v: v if v > 1 else -v  # error: JIT101
    return lax.fori_loop(0, 5, body, x) + lax.cond(x > 0, flip, lambda v: v, x)
""",
        # Under jit, jnp results on constants are tracers too (omnistaging).
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    scale = jnp.float32(2.0)
    if not scale > 1:  # error: JIT101
        return x
    return max(x, scale)  # error: JIT101
""",
        """
import jax
from functools import partial
@partial(jax.jit, static_argnums=(1,))
def f(x, axis, flag):
    if x.sum(axis) > 0 or flag > 0:  # error: JIT101
        return x
    return bool(x.any())  # error: JIT101
f2 = jax.jit(lambda x: 1.0 in abs(x))  # error: JIT101
""",
        # A tracer is a jax.Array, and `or` runs its right operand when the guard failed.
        """
import jax
@jax.jit
def f(x, n: int):
    if isinstance(x, jax.Array) and x.sum() > 0:  # error: JIT101
        return x
    if isinstance(n, int) or n > 1:  # error: JIT101
        return x * 2
    return -x
""",
        # `jax.jit` traces every leaf of a pytree argument, an `int` field included; only
        # fields declared static are not.
        """
import flax.struct
import jax
@flax.struct.dataclass
class State:
    w: jax.Array
    step: int
    size: int = flax.struct.field(pytree_node=False)
@jax.jit
def update(state: State):
    if state.size > 1 and state.step > 10:  # error: JIT101
        return state.replace(w=state.w * 2)
    return state
""",
        # Validation of a traced value (CDCgov/PyRenew#495): the check cannot run at trace
        # time; the help points to `eqx.error_if`/`checkify`.
        """
import jax
import jax.numpy as jnp
@jax.jit
def log_density(rate):
    if jnp.any(rate <= 0):  # error: JIT101
        raise ValueError("rate must be positive")
    return jnp.log(rate)
""",
        # A flag parameter that is not static.
        """
import jax
@jax.jit
def f(x, training: bool):
    if training:  # error: JIT101
        return x * 0.5
    return x
""",
        # The handler does not catch the tracer error; nor does one of another function.
        """
import jax
from jax.errors import ConcretizationTypeError
@jax.jit
def f(x):
    try:
        if x > 0:  # error: JIT101
            return x
    except (ValueError, jax.errors.TracerArrayConversionError):
        pass
    try:
        def g(y):
            return y if y > 0 else -y  # error: JIT101
        return jax.vmap(g)(x)
    except ConcretizationTypeError:
        return x
""",
        # A handler for any error that raises again on every path passes the tracer's error
        # on.
        """
import jax
@jax.jit
def f(x, verbose):
    try:
        if x.sum() > 0:  # error: JIT101
            return x
    except Exception as err:
        if verbose:
            print(err)
            raise
        else:
            raise RuntimeError("bad input") from err
    return -x
""",
        # A call of a `@jax.jit` def in its own file that passes a number or a bool to a
        # parameter with a default: jit traces what it is given (TracerBoolConversionError).
        """
import jax
@jax.jit
def sample(x, *, temperature=0.0):
    if temperature > 0.0:  # error: JIT101
        return x / temperature
    return x
@jax.jit
def dropout(x, training=False):
    if training:  # error: JIT101
        return x * 0.5
    return x
def run(x):
    return sample(x, temperature=0.7), dropout(x, True)
""",
        # The helper called with `render=True` from traced code: its loop is traced.
        """
import jax
import jax.numpy as jnp
def settle(board):
    old = board + 1
    while not jnp.all(old == board):  # error: JIT101
        old = board
    return board
def reset(board, size, render=False):
    if render:
        board = settle(board)
    return board * size
@jax.jit
def run(board):
    return reset(board, 2, True)
""",
        # No grid under jit: `grid is None` holds and the conversion runs.
        """
import jax
import jax.numpy as jnp
def solar(x, grid=None):
    if grid is None and jnp.any(x <= 0.0):  # error: JIT101
        raise ValueError("x too small")
    return x * 2
f = jax.jit(lambda x: solar(x))
""",
        # The assert outside the `jax_disable_jit` guard, and one under its negation, run
        # under the trace.
        """
import jax
import jax.numpy as jnp
def blocks(x):
    h = jnp.sin(x)
    if jax.config.jax_disable_jit:
        h = h + 0
    assert not jnp.any(jnp.isnan(h))  # error: JIT101
    if not jax.config.jax_disable_jit:
        assert jnp.all(h < 2)  # error: JIT101
    return h
step = jax.jit(lambda xs: jax.lax.map(blocks, xs))
""",
        # The same helpers testing the dict's values, not its keys: those are tracers.
        """
import jax
import jax.numpy as jnp
def batchify(x, agents):
    missing = set(agents) - set(x)
    if missing:
        raise ValueError(f"missing {sorted(missing)}")
    if x[agents[0]].sum() > 0:  # error: JIT101
        raise ValueError("positive")
    return jnp.stack([x[a] for a in agents])
def body(carry, _):
    return carry, batchify({"p": carry, "q": carry}, ["p", "q"])
out = jax.lax.scan(body, jnp.ones(2), None, length=2)
@jax.jit
def step(obs):
    if obs["p"].sum() > 0:  # error: JIT101
        raise ValueError("positive")
    return obs
""",
        # The same imported function testing another name guards nothing about `ok`.
        """
import jax
import jax.numpy as jnp
from jax import device_get
from mypkg.util import not_tracer
def find(x, y):
    ok = jnp.isfinite(x).all()
    if not_tracer(y):
        if device_get(ok):  # error: JIT101
            return x
    return x * 2
run = jax.jit(find)
""",
    )

    def _report(
        self,
        node: cst.CSTNode,
        value: Value,
        trace: FunctionTrace,
        reason: str,
        fix: NodeFix | None = None,
        no_fix: str | None = None,
        at: cst.CSTNode | None = None,
        validation: bool = False,
    ) -> None:
        tracing = self.ctx.tracing
        why = f"; no automatic fix: {no_fix}" if no_fix else ""
        advice = _CHECK_HELP if validation else _CHOICE_HELP
        self.report(
            at or node,
            f"{reason} converts `{snippet(self.ctx.module, node)}` to a Python bool, but it is "
            f"a tracer with no value yet: {tracing.explain(value)}",
            help=f"{advice}{why}",
            fix=fix,
        )

    def visit_If(self, node: cst.If) -> None:
        self._check_test(node, node.test, "this `if`")

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node, node.test, "this `while`")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check_test(node, node.test, "this `assert`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check_test(node, node.test, "this conditional expression")

    def _check_test(self, owner: cst.CSTNode, test: cst.BaseExpression, reason: str) -> None:
        trace = self.ctx.tracing.function_at(self.ctx.path_to(owner))
        if trace is None or not trace.abstract:
            return
        for sink in _sinks(test):
            value = trace.value(sink)
            if value.kind == TRACED:
                fix = None
                if type(sink) is cst.Name:
                    from jitlint.fixes.framework_modules import lifted_argnums_fix
                    from jitlint.fixes.static_fix import static_argname_fix

                    fix = static_argname_fix(self.ctx, value) or lifted_argnums_fix(
                        self.ctx, value, self.ctx.path_to(owner)
                    )
                no_fix = None
                if fix is None and type(owner) in (cst.If, cst.IfExp):
                    from jitlint.fixes.traced.conds import branch_fix_or_reason

                    found = branch_fix_or_reason(self.ctx, owner, self.ctx.path_to(owner), trace)
                    fix, no_fix = (found, None) if isinstance(found, NodeFix) else (None, found)
                if fix is None and type(owner) is cst.If:
                    path = self.ctx.path_to(owner)
                    from jitlint.fixes.traced.checks import raise_check_fix
                    from jitlint.fixes.traced.guards import guard_return_fix
                    from jitlint.fixes.traced.masked import masked_assignments_fix

                    fix = (
                        raise_check_fix(self.ctx, owner, path)
                        or guard_return_fix(self.ctx, owner, path, trace)
                        or masked_assignments_fix(self.ctx, owner, path, trace)
                    )
                    no_fix = None if fix is not None else no_fix
                if fix is None and type(owner) is cst.While:
                    from jitlint.fixes.traced.loops import while_loop_fix

                    fix = while_loop_fix(self.ctx, owner, self.ctx.path_to(owner))
                if fix is None:  # `if n < 20:` on a parameter: a count or a threshold
                    name = sink if type(sink) is cst.Attribute else _compared_name(sink)
                    if type(name) is cst.Name:
                        from jitlint.fixes.static_fix import static_argname_fix

                        fix = static_argname_fix(self.ctx, trace.value(name))
                    elif type(name) is cst.Attribute:  # `if self.rate > 0:`, an equinox field
                        from jitlint.fixes.static_fix import static_field_fix

                        fix = static_field_fix(self.ctx, name, self.ctx.path_to(owner))
                if fix is None and type(owner) is cst.Assert:
                    from jitlint.fixes.statement_fix import assert_removal_fix

                    fix = assert_removal_fix(self.ctx.module, self.ctx.path_to(owner))
                validation = type(owner) is cst.Assert or _raises(owner)
                if validation and type(owner) is cst.If:
                    reason = "this check (`if ...: raise`)"
                self._report(sink, value, trace, reason, fix, no_fix, validation=validation)
                return

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self._in_test(node):
            return
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        if trace is None or not trace.abstract:
            return
        left = node.left
        # `a and b and c` is `(a and b) and c`: the outer `and` converts what the inner one
        # returned, its last operand (the inner operation checks `a` itself).
        while type(left) is cst.BooleanOperation and type(left.operator) is type(node.operator):  # type: ignore[attr-defined]
            if trace.value(left).kind == TRACED:
                break
            left = left.right  # type: ignore[attr-defined]
        value = trace.value(left)
        if value.kind == TRACED:
            operator = "and" if type(node.operator) is cst.And else "or"
            # Reported on the chain up to the conversion: `a and b` is what `and` converts.
            from jitlint.fixes.statement_fix import or_default_fix

            fix = or_default_fix(self.ctx.module, node) if left is node.left else None
            self._report(left, value, trace, f"`{operator}`", fix, at=node.left)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if type(node.operator) is not cst.Not or self._in_test(node):
            return
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        if trace is None or not trace.abstract:
            return
        value = trace.value(node.expression)
        if value.kind == TRACED:
            fix = None
            if type(node.expression) is cst.Name:
                from jitlint.fixes.framework_modules import lifted_argnums_fix
                from jitlint.fixes.static_fix import static_argname_fix

                fix = static_argname_fix(self.ctx, value) or lifted_argnums_fix(
                    self.ctx, value, self.ctx.path_to(node)
                )
            if fix is None:
                from jitlint.fixes.traced.expressions import logical_not_fix

                fix = logical_not_fix(self.ctx, node, self.ctx.parents[-1])
            self._report(node.expression, value, trace, "`not`", fix)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        membership = [t for t in node.comparisons if type(t.operator) in (cst.In, cst.NotIn)]
        chained = len(node.comparisons) > 1 and not self._in_test(node)
        if not membership and not chained:
            return
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        if trace is None or not trace.abstract:
            return
        for operand in (node.left, *(t.comparator for t in membership)) if membership else ():
            value = trace.value(operand)
            if value.kind == TRACED:
                self._report(node, value, trace, "`in`")
                return
        if chained:
            self._check_chain(node, trace)

    def _check_chain(self, node: cst.Comparison, trace: FunctionTrace) -> None:
        """`a < x < b` is `(a < x) and (x < b)`: every link but the last is converted."""
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        for index, link in enumerate(node.comparisons[:-1]):
            if type(link.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn):
                continue
            pair = operands[index : index + 2]
            values = [trace.value(operand) for operand in pair]
            hit = next((v for v in values if v.kind == TRACED), None)
            if hit is None and not any(_is_display_or_none(o) for o in pair):
                hit = next((v for v in values if v.traced), None)
            if hit is not None:
                from jitlint.fixes.traced.expressions import chained_comparison_fix

                fix = chained_comparison_fix(self.ctx.module, node)
                self._report(node, hit, trace, "this chained comparison", fix)
                return

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is not cst.Name or func.value not in (
            "bool", "max", "min", "any", "all", "sorted"
        ):  # fmt: skip
            return
        path = self.ctx.path_to(node)
        trace = self.ctx.tracing.function_at(path)
        if trace is None or not trace.abstract:
            return
        qualnames = self.ctx.names.qualified_names(func, path)
        if len(qualnames) != 1:
            return
        qualname = next(iter(qualnames))
        if qualname not in TRUTH_TEST | COMPARING_BUILTINS | ITERATING_BUILTINS:
            return
        for arg in node.args:
            value = trace.value(arg.value)
            if value.kind == TRACED:
                fix = self._minmax_fix(node, qualname)
                if fix is None:  # `assert bool(x)`: the assert can go (unsafe)
                    from jitlint.fixes.statement_fix import assert_removal_fix

                    fix = assert_removal_fix(self.ctx.module, self.ctx.parents)
                self._report(node, value, trace, f"`{func.value}()`", fix)
                return

    def _minmax_fix(self, node: cst.Call, qualname: str) -> NodeFix | None:
        twin = builtin_twin(builtin_name(qualname) or qualname)
        if qualname not in COMPARING_BUILTINS or twin is None or len(node.args) != 2:
            return None
        if any(a.keyword is not None or a.star for a in node.args):
            return None
        jnp, imported = self.ctx.import_name("jax.numpy", "jnp")
        module = self.ctx.module
        a, b = (module.code_for_node(arg.value) for arg in node.args)
        return NodeFix(
            "unsafe",
            f"use `{jnp}.{twin}`",
            ((node, f"{jnp}.{twin}({a}, {b})"),),
            (imported,) if imported else (),
        )

    def _in_test(self, node: cst.CSTNode) -> bool:
        """Whether `node` is (part of) a test the statement hooks already check."""
        parents = self.ctx.parents
        child = node
        for parent in reversed(parents):
            kind = type(parent)
            if kind is cst.BooleanOperation or (
                kind is cst.UnaryOperation and type(parent.operator) is cst.Not  # type: ignore[attr-defined]
            ):
                child = parent
                continue
            if kind in _TESTS:
                return parent.test is child  # type: ignore[attr-defined]
            return kind is cst.BooleanOperation
        return False


def _raises(node: cst.CSTNode) -> bool:
    """Whether `node` is an `if` without `else` whose body ends in `raise`: a validation."""
    if type(node) is not cst.If or node.orelse is not None:  # type: ignore[attr-defined]
        return False
    body = node.body  # type: ignore[attr-defined]
    if type(body) is cst.SimpleStatementSuite:
        last: cst.CSTNode | None = body.body[-1] if body.body else None
    else:
        lines = body.body
        last = lines[-1] if lines else None
        if type(last) is cst.SimpleStatementLine:
            last = last.body[-1] if last.body else None
    return type(last) is cst.Raise


def _is_display_or_none(expr: cst.CSTNode) -> bool:
    kind = type(expr)
    if kind in (cst.Tuple, cst.List, cst.Dict, cst.Set):
        return True
    return kind is cst.Name and expr.value == "None"  # type: ignore[attr-defined]


def _compared_name(expr: cst.CSTNode) -> cst.Name | cst.Attribute | None:
    """`n` in `n < 20` or `0 <= n` (or `self.n`): a name ordered against a number literal."""
    if type(expr) is not cst.Comparison or len(expr.comparisons) != 1:  # type: ignore[attr-defined]
        return None
    link = expr.comparisons[0]  # type: ignore[attr-defined]
    if type(link.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn):
        return None
    sides = (expr.left, link.comparator)  # type: ignore[attr-defined]
    names = [s for s in sides if type(s) in (cst.Name, cst.Attribute) and not s.lpar]
    numbers = [s for s in sides if type(s) in (cst.Integer, cst.Float)]
    return names[0] if len(names) == 1 and len(numbers) == 1 else None  # type: ignore[return-value]


def _sinks(expr: cst.CSTNode) -> list[cst.CSTNode]:
    """The sub-expressions a truth test converts to bool: operands of and/or/not."""
    kind = type(expr)
    if kind is cst.BooleanOperation:
        return _sinks(expr.left) + _sinks(expr.right)  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
        return _sinks(expr.expression)  # type: ignore[attr-defined]
    return [expr]
