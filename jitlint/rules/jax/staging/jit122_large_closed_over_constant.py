from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.model.domain.values import Scalar, Seq, Value
from jitlint.model.jax.api import SHAPE_ATTRIBUTES
from jitlint.model.jax.tracing import FunctionTrace
from jitlint.model.library.array_sizes import (
    SIZE_KEEPING_METHODS,
    elements,
    first_argument_of_conversion,
)
from jitlint.rules.base import JAX_TRACING, Option, Rule


class LargeClosedOverConstant(Rule):
    """
    ## What it does
    Finds a traced function (under `jax.jit`, or a `lax` loop body) that reads an array it
    does not receive as an argument: a module-level name, or a name of an enclosing
    function that is not traced, bound once to an array made with sizes written as numbers
    (`np.random.rand(8000)`, `jnp.zeros((512, 512))`, `jax.random.normal(key, (n, m))` with
    `n`, `m` constants, `jnp.array(...)`/`jax.device_put(...)` of such an array), of at
    least `min-elements` elements.

    ## Why is this bad
    JAX embeds a closed-over array in the compiled program as a constant (jax 0.10.2 by
    default: `jax_use_simplified_jaxpr_constants` is off). The compiler then copies, hashes
    and may constant-fold it: compile time and memory grow with its size, once per
    compilation. Reports: an 8,000-element global made `jit` take over 10 s on a GPU and
    0.1 s once passed as an argument (jax-ml/jax#10596); constant folding took a minute
    where the eager run took 0.1 s (#14655); closing over a large array in a jitted loop ran
    out of memory (#16278). Here a 2000 x 2000 float32 constant made a 32 MB program text
    and compiled 12 times slower than the same function taking it as an argument. On an
    H100 GPU with jax 0.11.2, lowering and compiling took 2.4 s with a 4000 x 4000 float32
    constant against 0.25 s with the same array as an argument (0.59 s against 0.33 s at
    2000 x 2000; the same machine's CPU backend: 1.0 s against 0.04 s). With
    `JAX_USE_SIMPLIFIED_JAXPR_CONSTANTS=1` (newer jax), non-scalar constants are hoisted
    to arguments and the cost goes away.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp
    import numpy as np

    TABLE = np.random.rand(2000, 2000).astype(np.float32)


    @jax.jit
    def project(x):
        return x @ TABLE  # error: JIT122


    project(jnp.ones(2000))
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp
    import numpy as np

    TABLE = np.random.rand(2000, 2000).astype(np.float32)


    @jax.jit
    def project(x, table):
        return x @ table


    project(jnp.ones(2000), TABLE)
    ```

    ## Fix safety
    There is no automatic fix: passing the array as an argument changes the function's
    signature and every caller.

    ## Options
    - `min-elements` (int, default `1000`): the smallest element count reported.

    ## Known problems
    Off by default. Only sizes the source writes as numbers (or names bound to numbers) are
    counted: `np.load(...)` and arrays made by project functions are not reported. A read
    of `.shape`, `.ndim`, `.dtype` or `.size` alone embeds nothing and is not reported. The
    hazard depends on the jax version and on `JAX_USE_SIMPLIFIED_JAXPR_CONSTANTS`, which
    the rule does not read.
    """

    code = "JIT122"
    name = "large-closed-over-constant"
    summary = "A jitted function closes over a large array, embedded as a compile-time constant."
    severity = "warning"
    tier = 2
    default_enabled = False
    requires = JAX_TRACING
    uses_tracing = True
    options = {
        "min-elements": Option(int, 1000, "the smallest closed-over array (in elements) reported"),
    }

    VALID = (
        # Passed as an argument.
        """
import jax
import numpy as np
TABLE = np.random.rand(2000, 2000)
@jax.jit
def project(x, table):
    return x @ table
project(np.ones(2000), TABLE)
""",
        # Only its shape is read; a small constant; a local array of the traced function.
        """
import jax
import jax.numpy as jnp
import numpy as np
GRID = np.zeros((512, 512))
SMALL = jnp.arange(16)
@jax.jit
def f(x):
    buffer = jnp.zeros((512, 512))
    return x.reshape(GRID.shape) + SMALL.sum() + buffer
""",
        # Not traced.
        """
import numpy as np
TABLE = np.random.rand(2000, 2000)
def project(x):
    return x @ TABLE
""",
        # Made inside a jitted function and closed over by its loop body: a tracer, not
        # a constant.
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    table = jnp.ones((1000, 1000))
    return jax.lax.fori_loop(0, 3, lambda i, v: v @ table, x)
""",
    )
    INVALID = (
        # jax-ml/jax#10596: a global made with device_put, read in a jitted function.
        """
import jax
import jax.numpy as jnp
import numpy as np
pulse = jax.device_put(np.random.rand(8000))
def f():
    return jnp.fft.fft(pulse)  # error: JIT122
a = jax.jit(f)()
""",
        # jax-ml/jax#16278: sizes from module constants, read in a loop body under jit.
        """
import jax
import jax.numpy as jnp
import numpy as np
ne, nq = 90, 80
ns = 2 * 45
bigmat = jnp.array(np.random.random((ne, nq, ns)))
def foo(x):
    def body(i, f):
        return f.at[i].set((bigmat[i] @ x).sum())  # error: JIT122
    return jax.lax.fori_loop(0, 1, body, jnp.zeros(x.shape[0]))
g = jax.jit(foo)
""",
        # An enclosing function's array, made in Python, closed over by a jitted function.
        """
import jax
import jax.numpy as jnp
def make_step(key):
    weights = jax.random.normal(key, (256, 256))
    @jax.jit
    def step(x):
        return jnp.tanh(x @ weights) + weights[0]  # error: JIT122
    return step
""",
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._reported: set[tuple[int, str]] = set()
        # The abstract trace of each innermost function (None: not traced abstractly), asked
        # once per function: the rule sees every name, ~10x more nodes than calls.
        self._abstract: dict[int, FunctionTrace | None] = {}
        # The functions, lambdas and classes the walk is in, each with its index in
        # `ctx.parents`: the innermost function of a name without copying its path.
        self._scopes: list[tuple[cst.FunctionDef | cst.Lambda | cst.ClassDef, int]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append((node, len(self.ctx.parents)))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()

    visit_Lambda = visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]
    leave_Lambda = leave_ClassDef = leave_FunctionDef  # type: ignore[assignment]

    def _enclosing_function(self, node: cst.Name) -> cst.FunctionDef | cst.Lambda | None:
        """`enclosing_function` of the path to `node`, from the scopes the walk is in."""
        parents = self.ctx.parents
        for scope, index in reversed(self._scopes):
            if type(scope) is cst.ClassDef:
                return None
            child = parents[index + 1] if index + 1 < len(parents) else node
            if child is scope.body:
                return scope  # type: ignore[return-value]
        return None

    def visit_Name(self, node: cst.Name) -> None:
        parents = self.ctx.parents
        parent = parents[-1] if parents else None
        if type(parent) is cst.Attribute:
            if parent.attr is node:  # type: ignore[attr-defined]
                return  # `x.name`: an attribute, not this name
            if parent.attr.value in SHAPE_ATTRIBUTES:  # read statically, nothing embedded  # type: ignore[attr-defined]
                return
        func = self._enclosing_function(node)
        if func is None:
            return
        path = None
        if id(func) in self._abstract:
            trace = self._abstract[id(func)]
        else:
            # What function_at answers depends on the innermost function alone, and the
            # traces are fixed once the module is solved (the first ask solves it).
            path = self.ctx.path_to(node)
            trace = self.ctx.tracing.function_at(path)
            if trace is not None and not trace.abstract:
                trace = None
            self._abstract[id(func)] = trace
        if trace is None:
            return
        key = (id(trace.func), node.value)
        if key in self._reported:
            return
        if path is None:
            path = self.ctx.path_to(node)
        found = self.ctx.names.lookup_with_path(node.value, path)
        if found is None or len(found[0]) != 1 or found[0][0].kind != "assign":
            return
        binding_path = found[1]
        if any(n is trace.func for n in binding_path):
            return  # a name of the traced function itself
        if self.ctx.tracing.function_at(binding_path) is not None:
            return  # made in traced code: a tracer, not a constant
        value = found[0][0].node
        size = self._elements(value, binding_path) if value is not None else None
        if size is None or size < self.settings["min-elements"]:
            return
        self._reported.add(key)
        line = self.ctx.tracing.line(value)  # type: ignore[arg-type]
        self.report(
            node,
            f"`{node.value}`, an array of {size:,} elements made at line {line}, is closed over by "
            f"`{trace.qualname}`, which JAX traces: it is embedded in the compiled program as "
            "a constant (compile time and memory grow with it, once per compilation)",
            help=f"pass `{node.value}` as an argument of the jitted function; newer jax "
            "hoists such constants to arguments with `JAX_USE_SIMPLIFIED_JAXPR_CONSTANTS=1`",
        )

    def _elements(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> int | None:
        """The element count of the array `expr` (in the scope `path` leads into) makes."""
        if type(expr) is cst.Attribute and type(expr.value) is cst.Call:  # type: ignore[attr-defined]
            return None
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute and depth < 4:  # type: ignore[attr-defined]
            # `np.random.rand(n).astype(np.float32)`: the receiver's size.
            receiver = expr.func.value  # type: ignore[attr-defined]
            if expr.func.attr.value in SIZE_KEEPING_METHODS and type(receiver) is cst.Call:  # type: ignore[attr-defined]
                return self._elements(receiver, path, depth + 1)
        if type(expr) is not cst.Call or depth > 4:
            return None
        qualnames = self.ctx.names.qualified_names(expr.func, path)  # type: ignore[attr-defined]
        if len(qualnames) != 1:
            return None
        qualname = next(iter(qualnames))
        args = [(a.keyword.value if a.keyword else None, a.value) for a in expr.args if not a.star]  # type: ignore[attr-defined]
        if len(args) != len(expr.args):  # type: ignore[attr-defined]
            return None
        if first_argument_of_conversion(qualname):
            return (
                self._elements(args[0][1], path, depth + 1) if args and args[0][0] is None else None
            )
        scope = self.ctx.tracing.any_function_at(path)
        return elements(qualname, args, lambda arg: _ints(scope, arg))


def _ints(scope: FunctionTrace | None, expr: cst.CSTNode) -> list[int] | None:
    """The integers `expr` spells, as the model of its scope evaluates it."""
    if type(expr) is cst.Integer:
        return [int(expr.value, 0)]  # type: ignore[attr-defined]
    if scope is None:
        return None
    try:
        value = scope.value(expr)
    except LookupError:
        return None
    return _value_ints(value)


def _value_ints(value: Value) -> list[int] | None:
    if isinstance(value, Scalar) and type(value.const) is int:
        return [value.const]
    if isinstance(value, Seq) and value.items is not None:
        out: list[int] = []
        for item in value.items:
            found = _value_ints(item)
            if found is None or len(found) != 1:
                return None
            out += found
        return out
    return None
