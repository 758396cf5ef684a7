from __future__ import annotations

import libcst as cst

from jitlint.model.tf.xla_checks import (
    SHAPE_LEAVES,
    Problem,
    call_leaf,
    shape_problems,
    slice_problems,
)
from jitlint.rules.base import Rule


class XlaDynamicShape(Rule):
    """
    ## What it does
    Under XLA (`tf.function(jit_compile=True)`, or a Keras model compiled with
    `jit_compile=True`), checks the arguments XLA needs as compile-time constants: shapes,
    sizes, `multiples`, `repeats`, `depth`, `axis`, `perm`, `k`, `fft_length`, ... of `tf.tile`,
    `tf.repeat`, `tf.reshape`, `tf.fill`, `tf.zeros`, `tf.range`, `tf.slice`, `tf.one_hot`,
    `tf.math.top_k`, `tf.signal.rfft` and similar ops.

    - fed by a loop variable (`for i in tf.range(n)`, a `tf.while_loop` body's variables)
      or a stateful random op: an error, XLA cannot compile it;
    - fed by data computed from the function's arguments (or a `tf.Variable`): a warning,
      XLA silently compiles a new program for every distinct value;
    - a Python slice whose size changes with a loop variable inside an XLA loop: a warning,
      the result has a dynamic shape (not when it is reduced to a scalar where it stands,
      `tf.reduce_sum(w * x[: i + 1])`, which compiles).

    Values derived from `tf.shape(x)`, `x.shape` and Python ints are constants per
    compilation and are fine.

    ## Why is this bad
    XLA compiles for fixed shapes. A shape computed inside the compiled program from
    something that changes while it runs cannot be known:

    ```text
    InvalidArgumentError: Input 1 to node `while/Tile` with op Tile must be a compile-time
    constant. XLA compilation requires that operator arguments that represent shapes or
    dimensions be evaluated to concrete values at compile time.
    ```

    When the value comes from the arguments, TensorFlow instead folds it into a constant
    and compiles once per distinct value, which is slow and silent (observed: three
    distinct values, three XLA programs).

    ## Example
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def staircase(x):
        def body(i, total):
            return i + 1, total + tf.reduce_sum(tf.tile(x, [i + 1]))  # error: JIT202

        return tf.while_loop(lambda i, total: i < 3, body, [0, 0.0])[1]


    staircase(tf.constant([1.0, 2.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def staircase(x):
        total = 0.0
        for i in range(3):  # a Python loop: unrolled, so i is a Python int
            total += tf.reduce_sum(tf.tile(x, [i + 1]))
        return total


    staircase(tf.constant([1.0, 2.0]))
    ```

    ## Fix safety
    No automatic fix: the remedy depends on the intent. Derive sizes from `tf.shape(...)`,
    unroll with Python `range` when the trip count is small, use a fixed-width window
    (`x[i:i + 2]`), or pass the size as a Python int.

    ## Known problems
    Values are followed through assignments inside the function and through TensorFlow
    ops; a value passed through a helper function's parameters is not followed.
    Whether a dynamic-size slice compiles depends on the backend: TensorFlow 2.21 on XLA
    CPU compiles it with bounded dynamic shapes.
    """

    code = "JIT202"
    name = "xla-dynamic-shape"
    summary = "A shape argument under XLA is not a compile-time constant."
    framework = "tensorflow"
    requires = ("tensorflow",)
    runtime_error = "must be a compile-time constant"

    VALID = (
        # tf.shape-derived sizes are constants under XLA.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a):
    n = tf.shape(a)[0]
    return tf.reshape(a, [n // 2, -1]) + tf.zeros(tf.shape(a)[0]) + tf.tile(a, [a.shape[0]])
""",
        # The same ops without XLA are fine.
        """
import tensorflow as tf
@tf.function
def f(a):
    for i in tf.range(3):
        a = a + tf.reduce_sum(tf.zeros([i + 1]))
    return tf.repeat(a, tf.cast(a, tf.int32))
""",
        # Python ints and unrolled Python loops.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a, k=2):
    out = []
    for i in range(3):
        out.append(tf.tile(a, [i + 1]))
    return tf.one_hot(tf.cast(a, tf.int32), 4), tf.zeros([k]), out
""",
        # A growing slice reduced to a scalar where it stands (bounded, compiles on CPU).
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    total = 0.0
    for i in tf.range(tf.shape(x)[0]):
        total += tf.reduce_sum(tf.square(x[: i + 1]))
    return total
""",
        # A fixed-width window moved by the loop variable.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a):
    def body(i, acc):
        return i + 1, acc + tf.reduce_sum(a[i : i + 2])
    return tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0])
""",
    )
    INVALID = (
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a):
    n = tf.random.uniform([], 1, 3, dtype=tf.int32)
    return tf.zeros([n])  # error: JIT202
""",
        # Data-dependent counts: recompiles per value (warning).
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a):
    counts = tf.cast(a, tf.int32)
    return tf.repeat(a, counts)  # error: JIT202
""",
        # while_loop body variables.
        """
import tensorflow as tf
def step(a):
    def body(i, acc):
        acc = acc + tf.reduce_sum(tf.slice(a, [0], [i + 1]))  # error: JIT202
        head = a[: i + 1]  # error: JIT202
        return i + 1, acc + tf.reduce_sum(head)
    return tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0])
f = tf.function(step, jit_compile=True)
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if call_leaf(node) not in SHAPE_LEAVES:
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        for problem in shape_problems(self.ctx, node, path):
            self._report(problem, context.origin)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not any(type(e.slice) is cst.Slice for e in node.slice):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        for problem in slice_problems(self.ctx, node, path):
            self._report(problem, context.origin)

    def _report(self, problem: Problem, origin: str) -> None:
        what, detail = problem.what, problem.detail
        if problem.kind == "never-constant":
            self.report(
                problem.node,
                f"{what} depends on {detail}, so it is not a compile-time constant: "
                f"compiling {origin} fails ('must be a compile-time constant')",
                help="derive it from tf.shape(...), or unroll with a Python range",
            )
        elif problem.kind == "per-value" and what == "slice bound":
            self.report(
                problem.node,
                f"slice bound is computed from the function's data in {origin}: XLA folds it "
                "into a constant and compiles again for every distinct value",
                help="derive it from tf.shape(...), or pass it as a Python int",
                severity="warning",
            )
        elif problem.kind == "per-value":
            self.report(
                problem.node,
                f"{what} is computed from {detail}: XLA folds it into a constant and compiles "
                f"{origin} again for every distinct value",
                help="derive it from tf.shape(...), or pass it as a Python int",
                severity="warning",
            )
        elif problem.kind == "loop-slice":
            self.report(
                problem.node,
                f"slice bound depends on a loop variable in {origin}: the slice's size changes "
                "every iteration, a dynamic shape XLA supports only as a bounded dynamic shape",
                help="use a fixed-width window x[i : i + k], tf.gather, or a mask",
                severity="warning",
            )
