from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import python_sequence
from jitlint.model.jax.api import JAX_JIT
from jitlint.model.jax.static_args.sizes import (
    STATIC_TWINS,
    jitted_library_static,
    traced_size,
)
from jitlint.model.jax.tracing import FunctionTrace, Value, snippet
from jitlint.rules.base import JAX_TRACING, Rule


class TracedShape(Rule):
    """
    ## What it does
    Finds a traced value used where JAX needs a static integer: a shape or size
    (`jnp.zeros(n)`, `x.reshape(n, -1)`, `jnp.arange(n)`, `jnp.linspace(0, 1, n)`,
    `jax.random.normal(key, (n,))`, `jnp.repeat(x, n)`, `jnp.tile`, `jnp.split`), an
    axis (`x.sum(axis=n)`, `x.min(n)`), or a slice bound (`x[i:i + 2]`). Which parameters
    of `jax.numpy`, `lax`, `jax.nn`, `jax.random`, `jax.ops` and array methods must be
    static comes from facts generated from jax itself (`num_classes` of `jax.nn.one_hot`,
    the shape of `lax.full`, `segment_sum` without `num_segments`). Also found:
    `jax.jit` applied to such a library function directly (`jax.jit(jax.nn.one_hot)`), which
    traces those parameters unless `static_argnames` names them.

    ## Why is this bad
    Array shapes are part of what `jax.jit` compiles, so they must be known while tracing.
    A traced size fails:

    ```text
    TypeError: Shapes must be 1D sequences of concrete values of integer type, got
    (JitTracer(~int32[]),).
    IndexError: Slice entries must be static integers. Got slice(JitTracer(~int32[]), ...)
    ```

    jax 0.11 words the slice error as `IndexError: Array slice indices must have static
    start/stop/step to be used with NumPy indexing syntax` (seen on jax 0.11.2, on a GPU).

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
    callers must pass a hashable Python value. A library function jitted in the same file
    (`jax.jit(jax.nn.one_hot)`) gets the parameter jax needs static added to that
    `jax.jit(...)` call (`static_argnames=("num_classes",)`), unsafe for the same reasons.
    A size that is a leaf of a parameter (`widths[0]` of a tuple `widths`) makes the whole
    parameter static when every call in the file passes it a tuple of int literals
    (`(32, 32)`), also unsafe: another caller passing a list or arrays cannot be hashed. A size
    computed by `jnp.minimum`/`jnp.maximum` of static values (directly, or through a name
    assigned once) becomes the builtin `min`/`max`, which keeps a Python int: unsafe where
    the same name is also used as an array (`.astype`, `.shape`).

    ## Known problems
    Sizes derived from `x.shape`, `len(...)`, static parameters and closed-over Python
    values are static and not reported. A parameter with a default value is not reported,
    since the default, when the caller leaves it out, is static.
    """

    code = "JIT103"
    name = "traced-shape"
    summary = "A traced value is used as a shape, size, axis or slice bound."
    fix_availability = "sometimes"
    runtime_error = (
        "Shapes must be 1D sequences of concrete values|Slice entries must be static"
        "|slice indices must have static"
    )
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
        self,
        node: cst.CSTNode,
        what: str,
        value: Value,
        fix: NodeFix | None = None,
        static_fix: bool = True,
    ) -> None:
        if fix is None and static_fix:
            from jitlint.fixes.static_fix import static_argname_fix

            fix = static_argname_fix(self.ctx, value, leaves=True)
        self.report(
            node,
            f"{what} must be static, but `{snippet(self.ctx.module, node)}` uses a traced "
            f"value: {self.ctx.tracing.explain(value)}",
            help="derive it from `x.shape`, or make the parameter static "
            "(`static_argnames`); for a window at a traced offset use "
            "`lax.dynamic_slice_in_dim`",
            fix=fix,
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) in (cst.Name, cst.Call) and node.args:
            self._jitted_library_call(node)
        if type(func) not in (cst.Attribute, cst.Name):
            return
        trace = self._trace(node)
        found = traced_size(self.ctx.tracing, trace, node) if trace is not None else None
        if found is None or trace is None:
            return
        if found.method:
            label = f"`.{found.callee}`"
        else:
            label = found.callee.replace("jax.numpy.", "jnp.").replace("numpy.", "np.", 1)
            label = f"`{label}`"
        role, param, value = found.role, found.param, found.value
        if role in ("param", "size argument") and found.expr is not None:
            what = f"`{param}` of {label}" if role == "param" else f"the size argument of {label}"
            self._report(node, what, value, self._static_math_fix(trace, node, found.expr))
        elif role == "unless":
            self._report(
                node,
                f"without `{found.size}=`, {label} reads its result's size from argument "
                f"values at trace time, so `{param}`",
                value,
                static_fix=False,  # the remedy is the size, not a static array
            )
        else:
            what = {
                "axis": "`axis`",
                "shape": "the shape",
                "repeats": f"`repeats` of {label} (without `total_repeat_length=`)",
                "int size": f"`{param}` of {label} (an int, taken as a size)",
            }[role]
            self._report(node, what, value)

    def _jitted_library_call(self, node: cst.Call) -> None:
        """`jax.jit(jax.nn.one_hot)(labels, 10)`: jit traces every argument it is not told is
        static, also those the library function needs as Python values."""
        found = jitted_library_static(self.ctx.jit, self.ctx.names, node, self.ctx.path_to(node))
        if found is None:
            return
        label = found.qualname.replace("jax.numpy.", "jnp.")
        param, arg = found.param, found.arg
        self.report(
            arg,
            f"`{param}` of `{label}` must be static, but `jax.jit({label})` traces it: "
            f"`{snippet(self.ctx.module, arg)}` arrives as a tracer (static_argnames is "
            "not given for it)",
            help=f'pass `static_argnames=("{param}",)` to `jax.jit`, or jit a function '
            f"that closes over `{param}`",
            fix=self._library_static_fix(found.jit_call, param),
        )

    def _static_math_fix(
        self, trace: FunctionTrace, node: cst.Call, expr: cst.CSTNode
    ) -> NodeFix | None:
        """`jnp.minimum(a, b)` of two static values, used as a size (directly, or through a
        name assigned once) -> `min(a, b)`: a Python int, which jit takes as a size."""
        call = expr
        if type(expr) is cst.Name:
            found = self.ctx.names.lookup_with_path(expr.value, self.ctx.path_to(node))
            bindings = found[0] if found is not None else []
            if len(bindings) != 1 or bindings[0].kind != "assign":
                return None
            call = bindings[0].node
        if type(call) is not cst.Call or len(call.args) != 2:
            return None
        qualnames = self.ctx.tracing.qualified(trace, call.func)
        builtin = STATIC_TWINS.get(next(iter(qualnames))) if len(qualnames) == 1 else None
        if builtin is None or any(a.keyword is not None or a.star for a in call.args):
            return None
        if self.ctx.names.lookup_with_path(builtin, self.ctx.path_to(node)) is not None:
            return None  # the builtin's name is bound to something else here
        if any(trace.value(a.value).traced for a in call.args):
            return None
        code = self.ctx.module.code_for_node
        text = f"{builtin}({', '.join(code(a.value) for a in call.args)})"
        if "\n" in text or "\r" in text:
            return None
        return NodeFix(
            "unsafe",
            f"compute the size in Python: `{builtin}(...)` of static values stays static",
            ((call, text),),
        )

    def _library_static_fix(self, jit_call: cst.Call, param: str) -> NodeFix | None:
        """`jax.jit(jax.nn.one_hot)` -> `jax.jit(jax.nn.one_hot, static_argnames=(...))`."""
        names = self.ctx.names.qualified_names(jit_call.func, self.ctx.path_to(jit_call))
        if names != JAX_JIT:
            return None
        from jitlint.fixes.static_fix import with_static_name

        text = with_static_name(self.ctx.module, jit_call, param)
        if text is None or "\n" in text:
            return None
        return NodeFix(
            "unsafe",
            f"mark `{param}` static with `static_argnames` (one compilation per value; callers "
            "pass a hashable Python value)",
            ((jit_call, text),),
        )

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
