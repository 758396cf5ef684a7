from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import Array
from jitlint.model.jax.api import ARRAY_CONVERSION_ERRORS, TRACER_ERROR_CATCHERS
from jitlint.model.jax.tracing import snippet
from jitlint.model.library.jax_facts import jax_numpy_twin, numpy_may_convert
from jitlint.rules.base import Rule


class NumpyOnTracer(Rule):
    """
    ## What it does
    Finds a NumPy function applied to a traced value inside a function JAX traces, e.g.
    `np.sin(x)`, `np.asarray(x)`, `np.concatenate([x, y])`, `np.float32(x)`, and a NumPy
    array indexed with a traced value (`TABLE[i]`).

    NumPy functions that simply call the array's own method (`np.sum`, `np.mean`,
    `np.max`, `np.reshape`, `np.transpose`, ...) or only read its shape (`np.shape`,
    `np.ndim`, `np.size`) work on tracers and are not reported.

    ## Why is this bad
    NumPy computes on concrete buffers: it asks the tracer for one through `__array__`,
    and a tracer has no values while it is being traced:

    ```text
    jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method
    __array__() was called on traced array with shape float32[3]
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp
    import numpy as np


    @jax.jit
    def wave(x):
        return np.sin(x) * 2  # error: JIT104


    wave(jnp.arange(3.0))
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def wave(x):
        return jnp.sin(x) * 2


    wave(jnp.arange(3.0))
    ```

    ## Fix safety
    `np.f` is replaced by `jnp.f` where `jax.numpy` has a function of that name. The fix is
    unsafe: default dtypes (float32 unless x64 is enabled), type promotion and
    out-of-bounds indexing differ between NumPy and JAX. A NumPy array indexed by a tracer
    (`table[i]`, also in a helper the traced code calls) becomes `jnp.asarray(table)[i]`
    (not where it is assigned to); unsafe for the same reasons, and the table is copied
    to the device on each trace.

    ## Known problems
    NumPy on static data (shapes, Python constants, NumPy constants) is correct inside jit
    and not reported. Functions not known to convert their arguments are not reported.
    A conversion in the body of a `try` whose handler catches the error (by its name, or as
    a `TypeError`, `Exception` or bare `except:` that does not raise again) is a probe for a
    tracer (`try: np.asarray(x) except Exception: return False`) and is not reported.
    """

    code = "JIT104"
    name = "numpy-on-tracer"
    summary = "A NumPy function that converts its argument is applied to a traced value."
    fix_availability = "sometimes"
    runtime_error = "TracerArrayConversionError"
    requires = ("numpy",)
    caught_by = ARRAY_CONVERSION_ERRORS
    swallowed_by = TRACER_ERROR_CATCHERS

    VALID = (
        # A NumPy array indexed with Python values.
        """
import jax
import numpy as np
TABLE = np.arange(4.0)
@jax.jit
def f(x):
    return x * TABLE[2] + TABLE[: x.shape[0]].sum()
""",
        # np.sum / np.mean / np.shape dispatch to the array's methods and work on tracers.
        """
import jax
import numpy as np
@jax.jit
def f(x):
    return np.sum(x) + np.mean(x) + np.shape(x)[0] + np.zeros(x.shape).sum()
""",
        # NumPy on static data, and NumPy types as dtypes.
        """
import jax
import jax.numpy as jnp
import numpy as np
TABLE = np.arange(4.0)
@jax.jit
def f(x):
    scale = np.sqrt(x.shape[0]) * np.max(TABLE)
    return x.astype(np.float32) * scale + jnp.zeros(3, dtype=np.float32)
""",
        # Not traced.
        """
import numpy as np
import jax.numpy as jnp
def f(x):
    return np.asarray(jnp.sin(x))
""",
        # A probe for a tracer: the conversion error is caught (a TypeError, so `except
        # Exception` catches it) and the function answers from the handler.
        """
import jax
import numpy as np
def concrete(v):
    try:
        table = np.asarray(v, dtype=np.float32)
    except Exception:
        return False
    return bool(np.isfinite(table).all())
def pick(x):
    try:
        return np.asarray(x).sum()
    except (TypeError, jax.errors.TracerArrayConversionError):
        return None
@jax.jit
def f(x):
    if concrete(x) and pick(x) is not None:
        return x
    return x * 2
""",
        # `**kwargs.get(key, python_default)` of a jitted function: the caller picks the keys,
        # so the value may be the Python default (ott's `kwargs.get("t0", 0.0)`).
        """
import jax
import numpy as np
@jax.jit
def f(x, **kwargs):
    t0 = kwargs.get("t0", 0.0)
    return x * np.linspace(t0, 1.0, 5).sum()
""",
        # A `jax.numpy` function returns a JAX array whatever it is given: a NumPy table made
        # one before a traced index reaches it, on a path only vmap traces or inside
        # `ensure_compile_time_eval` (each runs as it is called).
        """
import jax
import jax.numpy as jnp
import numpy as np
def draw(m, i):
    table = jnp.asarray(np.arange(1 << m))
    return table[i]
def sample(idx):
    return jax.vmap(lambda i: draw(3, i))(idx)
@jax.jit
def pick(i):
    with jax.ensure_compile_time_eval():
        table = jnp.asarray(np.arange(8)) * 2
    return table[i]
""",
        # `jax.core.is_concrete(x)` is False for a tracer under jit: past a guard that raises
        # when it fails, `x` is a Python or NumPy value (jax-fli's healpy path).
        """
import jax
import jax.numpy as jnp
import numpy as np
def spectrum(m, m2=None, method="jax"):
    if method == "numpy":
        if not jax.core.is_concrete(m):
            raise ValueError("needs concrete arrays")
        if m2 is not None and not jax.core.is_concrete(m2):
            raise ValueError("needs concrete arrays")
        return jnp.asarray(np.asarray(m)), None if m2 is None else np.asarray(m2)
    return m, m2
@jax.jit
def run(m, m2):
    return spectrum(m, m2, method="numpy")
""",
    )
    INVALID = (
        # A handler that raises again passes the error on; one for another error does not
        # catch it.
        """
import jax
import logging
import numpy as np
@jax.jit
def f(x):
    try:
        y = np.asarray(x)  # error: JIT104
    except Exception:
        logging.exception("no buffer")
        raise
    try:
        z = np.sin(x)  # error: JIT104
    except ValueError:
        z = x
    return y + z
""",
        # A value of `**kwargs` taken by key: traced whenever it is there.
        """
import jax
import numpy as np
@jax.jit
def f(x, **kwargs):
    return x * np.asarray(kwargs["scale"])  # error: JIT104
""",
        # A NumPy array indexed with a tracer.
        """
import jax
import numpy as np
TABLE = np.arange(4.0)
@jax.jit
def f(i):
    rows = np.indices((3, 3))
    return TABLE[i] + rows[0][i]  # error: JIT104, JIT104
""",
        """
import jax
import numpy as np
@jax.jit
def f(x):
    y = np.asarray(x)  # error: JIT104
    return np.concatenate([x, x]) + np.float32(x[0])  # error: JIT104, JIT104
""",
        """
import jax
import numpy as onp
from jax import lax
def run(x):
    return lax.scan(lambda c, v: (c + onp.exp(v), None), 0.0, x)  # error: JIT104
""",
        # The same table kept NumPy: indexed by a tracer under vmap alone and under jit.
        """
import jax
import numpy as np
def draw(m, i):
    table = np.arange(1 << m)
    return table[i]  # error: JIT104
def sample(idx):
    return jax.vmap(lambda i: draw(3, i))(idx)
def cell(m, i):
    return np.arange(1 << m)[i]  # error: JIT104
fast = jax.jit(lambda i: cell(3, i))
""",
        # A guard on another name, or one that does not leave when it fails, proves nothing.
        """
import jax
import jax.numpy as jnp
import numpy as np
def spectrum(m, m2, method="jax"):
    if method == "numpy":
        if jax.core.is_concrete(m2):
            raise ValueError("m2 must be traced")
        if not jax.core.is_concrete(m2):
            print("tracing")
        return jnp.asarray(np.asarray(m)), np.asarray(m2)  # error: JIT104
    return m, m2
@jax.jit
def run(m, m2):
    return spectrum(m, m2, method="numpy")
""",
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """`table[i]` on a NumPy array with a traced index: NumPy converts the index."""
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        if trace is None or not trace.abstract:
            return
        base = trace.value(node.value)
        if not isinstance(base, Array) or base.jax:
            return
        for element in node.slice:
            part = element.slice
            parts = (
                [part.value]
                if type(part) is cst.Index
                else [  # type: ignore[attr-defined]
                    p
                    for p in (part.lower, part.upper, part.step)
                    if p is not None  # type: ignore[attr-defined]
                ]
            )
            for expr in parts:
                value = trace.value(expr)
                if value.traced:
                    self.report(
                        node,
                        f"`{snippet(self.ctx.module, node.value)}` is a NumPy array: indexing it "
                        f"with the tracer `{snippet(self.ctx.module, expr)}` converts the tracer "
                        f"to a NumPy array: {self.ctx.tracing.explain(value)}",
                        help="index a JAX array instead: `jnp.asarray(table)[i]`",
                        fix=self._index_fix(node),
                    )
                    return

    def _index_fix(self, node: cst.Subscript) -> NodeFix | None:
        """`table[i]` -> `jnp.asarray(table)[i]`."""
        parent = self.ctx.parents[-1] if self.ctx.parents else None
        if type(parent) in (cst.AssignTarget, cst.AugAssign, cst.Del, cst.AnnAssign):
            return None  # a write: a JAX array cannot be assigned to in place
        code = self.ctx.module.code_for_node
        table = code(node.value)
        if "\n" in table or "\r" in table:
            return None
        jnp, imported = self.ctx.import_name("jax.numpy", "jnp")
        return NodeFix(
            "unsafe",
            f"index a JAX array: `{jnp}.asarray({table})[...]`",
            ((node.value, f"{jnp}.asarray({table})"),),
            (imported,) if imported else (),
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is not cst.Attribute:
            return
        path = self.ctx.path_to(node)
        trace = self.ctx.tracing.function_at(path)
        if trace is None or not trace.abstract:
            return
        qualnames = self.ctx.tracing.qualified(trace, func)
        if len(qualnames) != 1:
            return
        qualname = next(iter(qualnames))
        # Functions of other NumPy modules (`numpy.random`, `numpy.testing`) are not probed and
        # not reported; a probed one is unless it is known not to convert.
        if not numpy_may_convert(qualname):
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "dtype":
                continue
            value = trace.value(arg.value)
            if not value.traced and type(arg.value) in (cst.List, cst.Tuple):
                value = next(
                    (
                        trace.value(e.value)
                        for e in arg.value.elements  # type: ignore[attr-defined]
                        if trace.value(e.value).traced
                    ),
                    value,
                )
            if value.traced:
                short = qualname.replace("numpy.", "np.", 1)
                self.report(
                    node,
                    f"`{short}` converts its argument to a NumPy array, but "
                    f"`{snippet(self.ctx.module, arg.value)}` is a tracer: "
                    f"{self.ctx.tracing.explain(value)}",
                    help="use the `jax.numpy` function of the same name",
                    fix=self._fix(func, qualname),
                )
                return

    def _fix(self, func: cst.Attribute, qualname: str) -> NodeFix | None:
        name = qualname.removeprefix("numpy.")
        if not jax_numpy_twin(qualname):
            return None
        jnp, imported = self.ctx.import_name("jax.numpy", "jnp")
        return NodeFix(
            "unsafe",
            f"use `{jnp}.{name}`",
            ((func, f"{jnp}.{name}"),),
            (imported,) if imported else (),
        )
