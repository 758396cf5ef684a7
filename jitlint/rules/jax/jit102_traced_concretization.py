from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import python_sequence
from jitlint.model.jax.tracing import FunctionTrace, Value, snippet
from jitlint.model.library.jax_facts import math_twins, value_reading_methods
from jitlint.python.builtins_facts import (
    COUNTS,
    FLOAT_CONVERSION,
    NUMBER_CONVERSIONS,
    RANGE,
    builtin_name,
)
from jitlint.python.walker import iter_children
from jitlint.rules.base import JAX_TRACING, Rule

# The builtins the rule resolves, as spelled: a plain-name gate before resolving the call.
_CONVERSIONS = NUMBER_CONVERSIONS | RANGE
_SPELLED_CONVERSIONS = frozenset(name.rpartition(".")[2] for name in _CONVERSIONS)


class TracedConcretization(Rule):
    """
    ## What it does
    Finds code that needs the concrete value of a traced array inside a function JAX
    traces: `float()`, `int()`, `complex()`, `.item()`, `.tolist()`, `.tobytes()`, `math.*`,
    `range(n)`, indexing a Python list or tuple with a traced index, and format specs such
    as `f"{loss:.3f}"`.

    ## Why is this bad
    A tracer has a shape and dtype but no value until the compiled function runs, so asking
    for a Python number fails while tracing:

    ```text
    jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete
    value is expected: traced array with shape float32[]
    jax.errors.TracerIntegerConversionError: The __index__() method was called on traced
    array with shape int32[]
    ```

    Under `jax.grad` alone values stay concrete, so the rule does not report there.

    ## Example
    ```python
    import math

    import jax
    import jax.numpy as jnp


    @jax.jit
    def norm(x):
        return math.sqrt(jnp.sum(x * x))  # error: JIT102


    norm(jnp.arange(3.0))
    ```

    `float(x.sum())`, `int(n)`, `x.item()`, `x.tolist()`, `range(n)` and
    `f"{loss:.3f}"` on traced values fail the same way.

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def norm(x):
        return jnp.sqrt(jnp.sum(x * x))


    float(norm(jnp.arange(3.0)))
    ```

    Convert to a Python number outside the jitted function, use `x.astype(float)` for a
    dtype change, `jnp.*` instead of `math.*`, `lax.fori_loop` or a static argument instead
    of `range(n)`, and `jax.debug.print` to print values.

    ## Fix safety
    `math.f(x)` on a traced value is rewritten to `jnp.f(x)` where `jax.numpy` has the same
    function. It is unsafe: the result is a 0-d array, not a Python float, so later code
    that needs a Python number still fails. `float(x)`, `int(x)` or `complex(x)` that only
    packs a returned value (`return params, {"loss": float(loss)}`) returns `x` itself:
    unsafe, because callers get a 0-d array instead of a Python number (arithmetic,
    formatting and comparisons still work; `isinstance(v, float)` and `json.dumps` do not).
    Convert outside the jitted function, where the value is concrete. `range(n)` and `int(n)`
    on a parameter of a function `jax.jit` compiles (or on arithmetic of it, `n - 1`) add
    the parameter to `static_argnames`; also unsafe: one compilation per value, and callers
    must pass a hashable Python value. Otherwise a `for i in range(n):` directly in a
    function's body, whose body only assigns plain names, becomes
    `jax.lax.fori_loop(0, n, _loop_body, carry)`, carrying the names bound before the loop
    (the same terms as JIT101's `while` rewrite): unsafe, each carried value must keep its
    shape and dtype, and Python side effects in the body run once, at trace time.
    The returned value may also sit in a dict or tuple bound to a name that the function
    only returns (`metrics = {"loss": float(loss)}` ... `return params, metrics`).
    `x.item()` becomes `x.reshape(())`: unsafe, the one element stays a 0-d array (it fails
    as `.item()` did when `x` has more than one element). Any other `float(x)` (an argument,
    arithmetic) becomes `jnp.asarray(x, dtype=float)`: unsafe for the same reason, and an
    array of several elements is no longer rejected. A Python list or tuple indexed by a
    tracer becomes `jnp.asarray(items)[i]` when every item is known to be a JAX array or a
    Python number (a list of modules or functions is left alone): unsafe, items of
    different shapes now fail at trace time, the items are stacked on every call, and an
    out-of-range index is clamped instead of raising. A list of flax nnx or equinox layers
    called at a traced index (`self.layers[t](x)`) becomes `jax.lax.switch(t, self.layers,
    x)`: unsafe, every layer is traced and must return the same shapes, the index is
    clamped, and layers that update their own state while called cannot run in
    `lax.switch` (haiku and linen modules are left alone). A list indexed by the counter of
    `jax.lax.fori_loop` (`def body(i, h): return self.blocks[i](h)` passed by name to
    `fori_loop(0, len(self.blocks), body, x)`, bounds int literals or `len(...)`) gets the
    loop unrolled into `functools.reduce(lambda _carry, _i: body(_i, _carry), range(0,
    len(self.blocks)), x)`, which passes the counter as a Python int and works for every
    kind of module: unsafe, the body is traced once per iteration, so compile time grows
    with the trip count and Python side effects in it run on every iteration. An f-string
    that formats a tracer with a spec and is only printed (`print(f"loss={loss:.4f}")`,
    `jax.debug.print(f"...")`, or `status = f"..."` followed by `print(status)`, the name
    read nowhere else) becomes a `jax.debug.print` template with the values as arguments
    (`jax.debug.print("loss={:.4f}", loss)`): unsafe, the line is now printed on every call
    with the values, not once while tracing.

    ## Known problems
    `float(x.shape[0])`, `int(x.size)`, `int(n)` with `n` static and conversions of values
    the analysis cannot follow are not reported. Indexing is reported only for lists and
    tuples built in the traced function.
    """

    code = "JIT102"
    name = "traced-concretization"
    summary = "A traced value is converted to a Python number, list, index or string."
    fix_availability = "sometimes"
    runtime_error = "ConcretizationTypeError|TracerIntegerConversionError|unsupported format"
    requires = JAX_TRACING
    uses_tracing = True

    VALID = (
        # A name a text-only test read (`startswith`) is text, whatever the pytree it came
        # from: a variable name like "X3" parsed back into its number.
        """
import jax
import jax.numpy as jnp
@jax.jit
def step(batch):
    indices = []
    for action in batch["actions"]:
        name = list(action["targets"])[0]
        if name.startswith("X") and len(name) > 1:
            indices.append(int(name[1:]))
        else:
            indices.append(0)
    return jnp.array(indices)
""",
        # The same read of `.shape`, but another read doubts the parameter is an array (a
        # None test, a type test): it stays unknown, and unknown is never an error.
        """
import equinox as eqx
class Attention(eqx.Module):
    def __call__(self, x, positions):
        if positions is None:
            return x
        if positions.shape[0] > 1:
            return x
        return x * positions[-1].item()
""",
        """
import equinox as eqx
class Attention(eqx.Module):
    def __call__(self, x, positions):
        if isinstance(positions, int):
            return x * positions
        return x * positions[-1].item() * positions.shape[0]
""",
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="n")
def f(x, n):
    scale = float(x.shape[0]) + int(x.size) + len(x)
    for i in range(n):
        x = x * scale
    return x[[1, 2][n % 2]]
""",
        # Python values closed over, and numpy on static data.
        """
import jax
import math
import numpy as np
WIDTH = 4
@jax.jit
def f(x):
    k = int(math.sqrt(WIDTH)) + int(np.prod((2, 2)))
    return x * k
""",
        # Guarded by isinstance: a Python int there, never a tracer.
        """
import jax
@jax.jit
def f(x, n):
    if isinstance(n, int):
        for i in range(n):
            x = x + i
    width = float(n) if isinstance(n, (int, float)) else x.shape[0]
    return x * width
""",
        # Under grad alone the rule stays silent.
        """
import jax
def loss(x):
    return x * float(x)
g = jax.grad(loss)
""",
        # Outside any transformation.
        """
import jax.numpy as jnp
def report(x):
    return float(jnp.sum(x)), x.tolist(), f"{jnp.mean(x):.3f}"
""",
        # An equinox module's constructor and its Python driver: the contract traces
        # `__call__` and public methods that take arrays, not the constructor (unless asked).
        # The module is built once at set-up from concrete arrays, and `fit`, which takes no
        # parameter said to be an array, loops in Python over a jitted step.
        """
import equinox as eqx
import jax
class Sparse(eqx.Module):
    w: jax.Array
    active: int = eqx.field(static=True)
    def __init__(self, w: jax.Array, threshold: float):
        self.w = w
        self.active = int((w > threshold).sum())
    def fit(self, data, steps: int = 100):
        model = self
        for _ in range(steps):
            model, loss = step(model, data)
            print(f"{float(loss):.3f}")
        return model
    def __call__(self, x: jax.Array):
        return x[: self.active] @ self.w[: self.active]
@eqx.filter_jit
def step(model, data):
    return model, (model(data) ** 2).sum()
""",
        # Under vmap alone (no jit around it) an operation on no batched value runs eagerly
        # and returns a concrete array: the layers a vmapped factory builds convert a jnp
        # result of a Python float closed over [observed on jax 0.10.2].
        """
import math
import equinox as eqx
import jax
import jax.numpy as jnp
def _gain(bound):
    return jnp.log1p(jax.nn.softplus(bound))
class Squash(eqx.Module):
    gain: float
    def __init__(self, bound: float):
        self.gain = math.exp(_gain(bound))
def stack(keys, bound: float = 3.0):
    def one(key):
        return Squash(bound)
    return eqx.filter_vmap(one)(keys)
""",
        # A size left None only by callers that never pass one: the traced call passes a
        # shape element, an int, so `if dim_size is None:` does not run under the trace.
        """
import jax
def scatter(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
@jax.jit
def step(x, index):
    n = x.shape[0]
    return scatter(x, index, dim_size=n)
""",
        # The size is a NamedTuple's field declared `int` (made from a config the model
        # does not know), or the first dimension of what a library's layer returned.
        """
from typing import NamedTuple
import jax
from somelib import config, encoder
class Graph(NamedTuple):
    num_graphs: int
def scatter(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
@jax.jit
def energy(x, index):
    graph = Graph(config.num_graphs)
    return scatter(x, index, dim_size=graph.num_graphs - 1)
@jax.jit
def message(x, index):
    h = encoder(x)
    return scatter(h, index, dim_size=h.shape[0])
""",
        # ... or that field of an instance made from a `*` argument: no value is seen, the
        # declaration still says an int.
        """
from typing import NamedTuple
import jax
from somelib import sizes
class Graph(NamedTuple):
    num_graphs: int
def scatter(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
@jax.jit
def energy(x, index):
    return scatter(x, index, dim_size=Graph(*sizes).num_graphs)
""",
        # A jit parameter left at its falsy default: given, `diff_mode` is a tracer and
        # `if not diff_mode:` fails first, so the conversion after the early return is
        # never traced.
        """
import jax
import jax.numpy as jnp
@jax.jit
def flux(x, diff_mode=False):
    if not diff_mode:
        return x * 2
    return float(jnp.sum(x))
""",
        # A module's `__call__` that compiles the class's own step itself and runs it in a
        # Python loop is the eager training driver, not code its users call under jit: the
        # helper it builds sizes its schedule with `int(jnp.ceil(...))` of Python ints.
        """
import equinox as eqx
import jax
import jax.numpy as jnp
class Schedule(eqx.Module):
    rounds: int
    def __init__(self, samples, batch):
        self.rounds = int(jnp.ceil(samples / batch))
class Fitter(eqx.Module):
    samples: int
    batch: int
    def step(self, model, data: jax.Array):
        return jax.tree_util.tree_map(lambda p: p - 0.1 * jnp.mean(data), model)
    def __call__(self, model, data: jax.Array):
        plan = Schedule(self.samples, self.batch)
        update = eqx.filter_jit(self.step)
        for _ in range(plan.rounds):
            model = update(model, data)
        return model
""",
    )
    INVALID = (
        # The same helper when the traced call leaves the size out.
        """
import jax
def scatter(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1  # error: JIT102
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
@jax.jit
def step(x, index):
    return scatter(x, index)
""",
        # ... passes None, or a field that may be None (`Optional[int]`).
        """
from typing import NamedTuple, Optional
import jax
from somelib import config
class Graph(NamedTuple):
    num_graphs: Optional[int]
def scatter(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1  # error: JIT102
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
@jax.jit
def energy(x, index):
    graph = Graph(config.num_graphs)
    return scatter(x, index, dim_size=graph.num_graphs)
""",
        """
import jax
def scatter(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1  # error: JIT102
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
@jax.jit
def step(x, index):
    return scatter(x, index, dim_size=None)
""",
        # An equinox module's `__call__` is traced by contract; `positions.shape` proves the
        # unannotated parameter an array, and nothing doubts it (an index and an argument
        # passed on do not), so its last element is a tracer there.
        """
import equinox as eqx
import jax
class Attention(eqx.Module):
    @jax.jit
    def update(self, cache, positions):
        return cache.at[positions].set(0.0)
    def __call__(self, x, positions, cache):
        cache = self.update(cache, positions)
        if positions.shape[0] > 1:
            return x, cache
        last = positions[-1].item()  # error: JIT102
        return x * last, cache
""",
        """
import jax
@jax.jit
def f(x, n):
    for i in range(n):  # error: JIT102
        x = x + i
    return x, int(n)  # error: JIT102
""",
        """
import jax
import jax.numpy as jnp
import math
@jax.jit
def f(x):
    a = x.sum().item()  # error: JIT102
    b = math.sqrt(x[0])  # error: JIT102
    c = x.tolist()  # error: JIT102
    d = x.tobytes()  # error: JIT102
    print(f"loss={jnp.mean(x):.3f}")  # error: JIT102
    return a + b
""",
        """
from jax import lax
def run(xs):
    options = [1.0, 2.0, 3.0]
    return lax.map(lambda i: options[i], xs)  # error: JIT102
""",
        # The same factory under jit: jit stages every operation, constants included.
        """
import math
import equinox as eqx
import jax
import jax.numpy as jnp
def _gain(bound):
    return jnp.log1p(jax.nn.softplus(bound))
class Squash(eqx.Module):
    gain: float
    def __init__(self, bound: float):
        self.gain = math.exp(_gain(bound))  # error: JIT102
def stack(keys, bound: float = 3.0):
    def one(key):
        return Squash(bound)
    return jax.jit(jax.vmap(one))(keys)
""",
        # Under vmap alone, an operation on the batched value is a tracer.
        """
import jax
def totals(xs):
    def row(x):
        return float(x.sum())  # error: JIT102
    return jax.vmap(row)(xs)
""",
        # The same with `diff_mode` static: a call may pass True as a Python value.
        """
from functools import partial
import jax
import jax.numpy as jnp
@partial(jax.jit, static_argnames="diff_mode")
def flux(x, diff_mode=False):
    if not diff_mode:
        return x * 2
    return float(jnp.sum(x))  # error: JIT102
""",
    )

    def _trace(self, node: cst.CSTNode) -> FunctionTrace | None:
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        return trace if trace is not None and trace.abstract else None

    def _report(
        self, node: cst.CSTNode, what: str, value: Value, fix: NodeFix | None = None
    ) -> None:
        self.report(
            node,
            f"{what} needs a concrete value, but `{snippet(self.ctx.module, node)}` works on a "
            f"tracer: {self.ctx.tracing.explain(value)}",
            help="convert outside the jitted function, use `.astype(...)`/`jnp.*` inside it, "
            "`jax.debug.print` to print, or make the parameter static",
            fix=fix,
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if kind is cst.Attribute and func.attr.value in value_reading_methods():  # type: ignore[attr-defined]
            if node.args:
                return
            trace = self._trace(node)
            if trace is None:
                return
            value = trace.value(func.value)  # type: ignore[attr-defined]
            if value.traced:
                fix = None
                if func.attr.value == "item":  # type: ignore[attr-defined]
                    fix = NodeFix(
                        "unsafe",
                        "keep the one element as a 0-d array: `.reshape(())`",
                        ((node, f"{self.ctx.module.code_for_node(func.value)}.reshape(())"),),  # type: ignore[attr-defined]
                    )
                self._report(node, f"`.{func.attr.value}()`", value, fix)  # type: ignore[attr-defined]
            return
        if kind is cst.Name:
            if func.value not in _SPELLED_CONVERSIONS:  # type: ignore[attr-defined]
                return
        elif kind is not cst.Attribute or type(func.value) is not cst.Name:  # type: ignore[attr-defined]
            return
        trace = self._trace(node)
        if trace is None:
            return
        qualnames = self.ctx.tracing.qualified(trace, func)
        if len(qualnames) != 1:
            return
        qualname = next(iter(qualnames))
        is_math = qualname.startswith("math.")
        if not (is_math or qualname in _CONVERSIONS):
            return
        for arg in node.args:
            if arg.keyword is not None:
                continue
            value = trace.value(arg.value)
            if value.traced:
                name = builtin_name(qualname) or qualname
                fix = self._math_fix(node, qualname) if is_math else None
                if fix is None and qualname in NUMBER_CONVERSIONS:
                    fix = self._returned_fix(node)
                if fix is None and qualname in FLOAT_CONVERSION:
                    from jitlint.fixes.traced.expressions import float_to_array_fix

                    fix = float_to_array_fix(self.ctx, node)
                # `range(n)`, `range(n - 1)`: a count; not `range(x.sum())` of an array
                counted = qualname in COUNTS
                if fix is None and counted and _arithmetic(arg.value):
                    from jitlint.fixes.static_fix import static_argname_fix

                    fix = static_argname_fix(self.ctx, value)
                loop = self.ctx.parents[-1] if self.ctx.parents else None
                if fix is None and type(loop) is cst.For and loop.iter is node:  # type: ignore[attr-defined]
                    from jitlint.fixes.traced.loops import for_range_fix

                    fix = for_range_fix(self.ctx, loop, self.ctx.parents)  # type: ignore[arg-type]
                self._report(node, f"`{name}()`", value, fix)
                return

    def _returned_fix(self, node: cst.Call) -> NodeFix | None:
        """`float(x)` that only packs a returned value (a metric): return the array itself.

        Unsafe: callers get a 0-d array instead of a Python number (arithmetic, formatting and
        comparisons still work; `isinstance(v, float)` and JSON encoding do not).
        """
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return None
        child: cst.CSTNode = node
        for ancestor in reversed(self.ctx.parents):
            kind = type(ancestor)
            if kind is cst.Return:
                break
            if kind is cst.DictElement and ancestor.value is not child:  # type: ignore[attr-defined]
                return None  # a dict key must stay hashable
            if kind is cst.Assign and self._only_returned(ancestor, child):  # type: ignore[arg-type]
                break
            if kind not in (cst.Element, cst.DictElement, cst.Tuple, cst.List, cst.Dict):
                return None
            child = ancestor
        else:
            return None
        code = self.ctx.module.code_for_node(node.args[0].value)
        return NodeFix(
            "unsafe",
            "return the array itself; convert with float() outside the jitted function",
            ((node, code),),
        )

    def _only_returned(self, assign: cst.Assign, value: cst.CSTNode) -> bool:
        """`metrics = {...}` whose name the function only returns (`return a, metrics`)."""
        if assign.value is not value or len(assign.targets) != 1:
            return False
        target = assign.targets[0].target
        if type(target) is not cst.Name:
            return False
        func = next((n for n in reversed(self.ctx.parents) if type(n) is cst.FunctionDef), None)
        if func is None:
            return False
        returned = False
        stack: list[tuple[cst.CSTNode, bool]] = [(func.body, False)]
        while stack:
            node, in_return = stack.pop()
            kind = type(node)
            if kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                continue  # a nested scope may read it later
            if node is assign:
                stack.append((assign.value, False))
                continue
            if kind is cst.Name and node.value == target.value:  # type: ignore[attr-defined]
                if not in_return:
                    return False
                returned = True
                continue
            if kind is cst.Return:
                value = node.value  # type: ignore[attr-defined]
                if value is None:
                    continue
                parts = value.elements if type(value) is cst.Tuple else None  # type: ignore[attr-defined]
                for part in [e.value for e in parts] if parts is not None else [value]:
                    stack.append((part, type(part) is cst.Name))
                continue
            stack.extend((child, False) for child in iter_children(node))
        return returned

    def _math_fix(self, node: cst.Call, qualname: str) -> NodeFix | None:
        twin = qualname.removeprefix("math.")
        if twin not in math_twins():
            return None
        jnp, imported = self.ctx.import_name("jax.numpy", "jnp")
        return NodeFix(
            "unsafe",
            f"use `{jnp}.{twin}`",
            ((node.func, f"{jnp}.{twin}"),),
            (imported,) if imported else (),
        )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
            return
        trace = self._trace(node)
        if trace is None:
            return
        base = trace.value(node.value)
        pytype = python_sequence(base)
        if pytype is None:
            return
        index = node.slice[0].slice.value  # type: ignore[attr-defined]
        value = trace.value(index)
        if value.traced:
            from jitlint.fixes.traced.expressions import stacked_index_fix, switch_call_fix
            from jitlint.fixes.traced.unroll import unrolled_fori_fix

            fix = (
                stacked_index_fix(self.ctx, node, base)
                or switch_call_fix(self.ctx, node, base, self.ctx.parents)
                or unrolled_fori_fix(self.ctx, node, self.ctx.parents)
            )
            self._report(node, f"indexing a Python {pytype}", value, fix)

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if not node.format_spec:
            return
        trace = self._trace(node)
        if trace is None:
            return
        value = trace.value(node.expression)
        if value.traced:
            parents = self.ctx.parents
            fstring = parents[-1] if parents else None
            fix = None
            if type(fstring) is cst.FormattedString:
                from jitlint.fixes.traced.expressions import printed_fstring_fix

                fix = printed_fstring_fix(self.ctx, fstring, parents[:-1])
            self._report(node.expression, "a format spec", value, fix)


def _arithmetic(expr: cst.BaseExpression) -> bool:
    """Names and numbers combined with arithmetic operators, nothing else."""
    kind = type(expr)
    if kind in (cst.Name, cst.Integer):
        return True
    if kind is cst.BinaryOperation:
        return _arithmetic(expr.left) and _arithmetic(expr.right)  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation:
        return _arithmetic(expr.expression)  # type: ignore[attr-defined]
    return False
