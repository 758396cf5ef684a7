from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.fixes.static_fix import static_argname_fix
from jitlint.model.domain.values import python_sequence
from jitlint.model.jax.frameworks import layers
from jitlint.model.jax.tracing import FunctionTrace, Value, snippet
from jitlint.rules.base import JAX_TRACING, Rule

_JNP = "jax.numpy."
_SHAPE_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    **{_JNP + n: ((0,), ("shape",)) for n in ("zeros", "ones", "empty", "full")},
    _JNP + "arange": ((0, 1, 2), ("start", "stop", "step")),
    _JNP + "linspace": ((2,), ("num",)),
    _JNP + "logspace": ((2,), ("num",)),
    _JNP + "geomspace": ((2,), ("num",)),
    _JNP + "eye": ((0, 1), ("N", "M")),
    _JNP + "identity": ((0,), ("n",)),
    _JNP + "tri": ((0, 1), ("N", "M")),
    _JNP + "reshape": ((1,), ("shape", "newshape")),
    _JNP + "broadcast_to": ((1,), ("shape",)),
    _JNP + "tile": ((1,), ("reps",)),
    _JNP + "split": ((1,), ("indices_or_sections",)),
    _JNP + "array_split": ((1,), ("indices_or_sections",)),
    **{f"jax.random.{n}": ((1,), ("shape",)) for n in (
        "normal", "uniform", "randint", "truncated_normal", "bits", "gumbel", "laplace",
        "logistic", "exponential", "rademacher", "orthogonal", "ball",
    )},
    # Not `jax.random.permutation(key, x)`: `x` is a size only when it is an int; an array
    # (traced or not) is permuted.
    # NumPy builds shapes at trace time, so they must be static too.
    **{f"numpy.{n}": ((0,), ("shape",)) for n in ("zeros", "ones", "empty", "full")},
    "numpy.arange": ((0, 1, 2), ("start", "stop", "step")),
    "jax.random.bernoulli": ((2,), ("shape",)),
    "jax.random.categorical": ((3,), ("shape",)),
    "jax.random.choice": ((2,), ("shape",)),
}  # fmt: skip
_METHODS = {"reshape": None, "repeat": None, "tile": None}


class TracedShape(Rule):
    """
    ## What it does
    Finds a traced value used where JAX needs a static integer: a shape or size
    (`jnp.zeros(n)`, `x.reshape(n, -1)`, `jnp.arange(n)`, `jnp.linspace(0, 1, n)`,
    `jax.random.normal(key, (n,))`, `jnp.repeat(x, n)`, `jnp.tile`, `jnp.split`), an
    `axis=` argument, or a slice bound (`x[i:i + 2]`).

    ## Why is this bad
    Array shapes are part of what `jax.jit` compiles, so they must be known while tracing.
    A traced size fails:

    ```text
    TypeError: Shapes must be 1D sequences of concrete values of integer type, got
    (JitTracer(~int32[]),).
    IndexError: Slice entries must be static integers. Got slice(JitTracer(~int32[]), ...)
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def pair_at(x, i):
        return x[i:i + 2]  # error: JIT103


    pair_at(jnp.arange(5.0), 1)
    ```

    Sizes fail the same way: `jnp.zeros(n)`, `x.reshape(n, -1)`, `jnp.arange(n)` with `n`
    a traced argument.

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp
    from jax import lax


    @jax.jit
    def pair_at(x, i):
        return lax.dynamic_slice_in_dim(x, i, 2)


    pair_at(jnp.arange(5.0), 1)
    ```

    Derive sizes from `x.shape`, or make the parameter static with
    `static_argnames=("n",)` (one compilation per value).

    ## Fix safety
    `x[i:i + k]` with `k` an integer literal is rewritten to
    `lax.dynamic_slice_in_dim(x, i, k)`. It is unsafe: at the end of the array
    `dynamic_slice` moves the window back to fit, where Python slicing returns fewer items.
    Otherwise, when the value comes from a parameter of a function `jax.jit` compiles, the
    parameter is added to `static_argnames`; also unsafe: one compilation per value, and
    callers must pass a hashable Python value.

    ## Known problems
    Sizes derived from `x.shape`, `len(...)`, static parameters and closed-over Python
    values are static and not reported. A parameter with a default value is not reported,
    since the default, when the caller leaves it out, is static.
    """

    code = "JIT103"
    name = "traced-shape"
    summary = "A traced value is used as a shape, size, axis or slice bound."
    fix_availability = "sometimes"
    runtime_error = "Shapes must be 1D sequences of concrete values|Slice entries must be static"
    requires = JAX_TRACING
    uses_tracing = True

    VALID = (
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    n = x.shape[0] // 2
    y = jnp.zeros((n, 2)) + jnp.arange(x.shape[-1]).sum()
    return x.reshape(n, -1)[: n + 1], y, jnp.zeros(3)
""",
        """
import jax
import jax.numpy as jnp
from functools import partial
@partial(jax.jit, static_argnames=("n", "axis"))
def f(x, n, axis):
    return jnp.zeros(n).sum() + x.sum(axis=axis) + x[1:n].sum()
""",
        # Past an isinstance guard's early exit, `n` is a Python int.
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x, n):
    if not isinstance(n, int):
        return x
    return jnp.zeros((n, 2)) + x[:n]
""",
        # A static field of an equinox Module.
        """
import equinox as eqx
import jax
import jax.numpy as jnp
class Net(eqx.Module):
    width: int = eqx.field(static=True)
    @eqx.filter_jit
    def __call__(self, x):
        return x + jnp.zeros(self.width)
""",
        # A parameter left at its default is static.
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x, n=3):
    return jnp.zeros(n) + x[:n]
""",
        # A scalar traced index (not a slice) is fine.
        """
import jax
@jax.jit
def f(x, i):
    return x[i]
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x, n):
    a = jnp.zeros((n, 2))  # error: JIT103
    b = x.reshape(n, -1)  # error: JIT103
    c = jnp.arange(n)  # error: JIT103
    d = x[n:n + 2]  # error: JIT103
    e = x.sum(axis=n)  # error: JIT103
    return a, b, c, d, e
""",
        """
import jax
import jax.numpy as jnp
from jax import lax
def run(x, key):
    def body(carry, k):
        return carry + jax.random.normal(key, (k,)).sum(), None  # error: JIT103
    return lax.scan(body, 0.0, jnp.arange(3))
""",
    )

    def _trace(self, node: cst.CSTNode) -> FunctionTrace | None:
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        return trace if trace is not None and trace.abstract else None

    def _report(
        self, node: cst.CSTNode, what: str, value: Value, fix: NodeFix | None = None
    ) -> None:
        if fix is None:
            fix = static_argname_fix(self.ctx, value)
        self.report(
            node,
            f"{what} must be static, but `{snippet(self.ctx.module, node)}` uses a traced "
            f"value: {self.ctx.tracing.explain(value)}",
            help="derive it from `x.shape`, or make the parameter static "
            "(`static_argnames`); for a window at a traced offset use "
            "`lax.dynamic_slice_in_dim`",
            fix=fix,
        )

    def _traced_in(self, trace: FunctionTrace, expr: cst.CSTNode) -> Value | None:
        """The traced value in a size expression (also inside a tuple or list of sizes)."""
        value = trace.value(expr)
        if value.traced:
            return value
        if type(expr) in (cst.Tuple, cst.List):
            for element in expr.elements:  # type: ignore[attr-defined]
                inner = trace.value(element.value)
                if inner.traced:
                    return inner
        return None

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) not in (cst.Attribute, cst.Name):
            return
        trace = self._trace(node)
        if trace is None:
            return
        axis = next(
            (a.value for a in node.args if a.keyword is not None and a.keyword.value == "axis"),
            None,
        )
        if type(func) is cst.Attribute and trace.value(func.value).traced:  # type: ignore[attr-defined]
            if axis is not None and self._axis(trace, node, axis):
                return
            if func.attr.value in _METHODS:  # type: ignore[attr-defined]
                for arg in node.args:
                    if arg.keyword is None or arg.keyword.value == "shape":
                        value = self._traced_in(trace, arg.value)
                        if value is not None:
                            self._report(node, "the shape", value)
                            return
                return
        qualnames = self.ctx.tracing.qualified(trace, func)
        if len(qualnames) != 1:
            return
        qualname = next(iter(qualnames))
        if not qualname.startswith(("jax.", "numpy.", *layers.PREFIXES)):
            return
        if axis is not None and self._axis(trace, node, axis):
            return
        spec = _SHAPE_ARGS.get(qualname) or layers.SHAPE_PARAMS.get(qualname)
        if qualname in (_JNP + "repeat",) and not any(
            a.keyword is not None and a.keyword.value == "total_repeat_length" for a in node.args
        ):
            spec = ((1,), ("repeats",))
        if spec is None:
            return
        positions, keywords = spec
        positional = [a for a in node.args if a.keyword is None]
        if any(a.star for a in positional):
            return
        candidates = [positional[i].value for i in positions if i < len(positional)]
        candidates += [a.value for a in node.args if a.keyword and a.keyword.value in keywords]
        for expr in candidates:
            value = self._traced_in(trace, expr)
            if value is not None:
                label = qualname.replace("jax.numpy.", "jnp.").replace("numpy.", "np.", 1)
                self._report(node, f"the size argument of `{label}`", value)
                return

    def _axis(self, trace: FunctionTrace, node: cst.Call, axis: cst.BaseExpression) -> bool:
        value = trace.value(axis)
        if value.traced:
            self._report(node, "`axis`", value)
        return value.traced

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not any(type(e.slice) is cst.Slice for e in node.slice):
            return
        trace = self._trace(node)
        if trace is None:
            return
        base = trace.value(node.value)
        if not base.traced and python_sequence(base) is None:
            return
        for element in node.slice:
            part = element.slice
            if type(part) is not cst.Slice:
                continue
            for bound in (part.lower, part.upper, part.step):  # type: ignore[attr-defined]
                if bound is None:
                    continue
                value = trace.value(bound)
                if value.traced:
                    self._report(node, "a slice bound", value, self._slice_fix(node, trace))
                    return

    def _slice_fix(self, node: cst.Subscript, trace: FunctionTrace) -> NodeFix | None:
        """`x[i:i + k]` with a literal k -> `lax.dynamic_slice_in_dim(x, i, k)`."""
        if len(node.slice) != 1 or not trace.value(node.value).traced:
            return None
        part = node.slice[0].slice
        if type(part) is not cst.Slice or part.step is not None:  # type: ignore[attr-defined]
            return None
        lower, upper = part.lower, part.upper  # type: ignore[attr-defined]
        if lower is None or type(upper) is not cst.BinaryOperation:
            return None
        if type(upper.operator) is not cst.Add or type(upper.right) is not cst.Integer:
            return None
        if not upper.left.deep_equals(lower):
            return None
        module = self.ctx.module
        lax, imported = self.ctx.import_name("jax.lax", "lax")
        text = (
            f"{lax}.dynamic_slice_in_dim({module.code_for_node(node.value)}, "
            f"{module.code_for_node(lower)}, {upper.right.value})"
        )
        return NodeFix(
            "unsafe",
            "use `lax.dynamic_slice_in_dim`",
            ((node, text),),
            (imported,) if imported else (),
        )
