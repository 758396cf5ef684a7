from __future__ import annotations

import libcst as cst

from jitlint.model.tf.api import SHAPE_ARG_APIS
from jitlint.model.tf.model import call_argument
from jitlint.model.tf.values import TENSOR, Value
from jitlint.rules.base import Rule

_LEAVES = frozenset(name.rsplit(".", 1)[-1] for name in SHAPE_ARG_APIS)
_NEVER_CONSTANT = {"loop": "a loop variable", "rng": "a stateful random op"}
_PER_VALUE = {"param": "an argument of the compiled function", "variable": "a tf.Variable"}


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
      the result has a dynamic shape.

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
        return i + 1, acc + tf.reduce_sum(a[: i + 1])  # error: JIT202
    return tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0])
f = tf.function(step, jit_compile=True)
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        leaf = (
            func.attr.value  # type: ignore[attr-defined]
            if kind is cst.Attribute
            else func.value  # type: ignore[attr-defined]
            if kind is cst.Name
            else None
        )
        if leaf not in _LEAVES:
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        names = self.ctx.names.qualified_names(func, path)
        slots = {tuple(SHAPE_ARG_APIS.get(n, ())) for n in names}
        if len(slots) != 1 or not next(iter(slots)):
            return
        api = next(iter(names)).replace("tensorflow.", "tf.", 1)
        values = self.ctx.tf.values
        for position, keyword in next(iter(slots)):
            arg = call_argument(node, position, keyword)
            if arg is None:
                continue
            value = values.value(arg.value, path)
            self._check(arg.value, value, f"`{keyword}` of `{api}`", context.origin)

    def _check(self, node: cst.CSTNode, value: Value, what: str, origin: str) -> bool:
        never = sorted(o for o in value.origins if o in _NEVER_CONSTANT)
        if never and value.kind == TENSOR:  # UNKNOWN (e.g. `i if flag else 2`) never errs
            self.report(
                node,
                f"{what} depends on {_NEVER_CONSTANT[never[0]]}, so it is not a compile-time "
                f"constant: compiling {origin} fails ('must be a compile-time constant')",
                help="derive it from tf.shape(...), or unroll with a Python range",
            )
            return True
        if value.kind == TENSOR and value.origins & _PER_VALUE.keys():
            source = _PER_VALUE[min(value.origins & _PER_VALUE.keys())]
            self.report(
                node,
                f"{what} is computed from {source}: XLA folds it into a constant and compiles "
                f"{origin} again for every distinct value",
                help="derive it from tf.shape(...), or pass it as a Python int",
                severity="warning",
            )
            return True
        return False

    def visit_Subscript(self, node: cst.Subscript) -> None:
        slices = [e.slice for e in node.slice if type(e.slice) is cst.Slice]
        if not slices:
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        values = self.ctx.tf.values
        for piece in slices:
            if _fixed_width(piece):  # type: ignore[arg-type]
                continue
            bounds = [b for b in (piece.lower, piece.upper) if b is not None]  # type: ignore[attr-defined]
            for bound in bounds:
                value = values.value(bound, path)
                if value.kind == TENSOR and value.origins & _NEVER_CONSTANT.keys():
                    self.report(
                        bound,
                        f"slice bound depends on a loop variable in {context.origin}: the "
                        "slice's size changes every iteration, a dynamic shape XLA supports "
                        "only as a bounded dynamic shape",
                        help="use a fixed-width window x[i : i + k], tf.gather, or a mask",
                        severity="warning",
                    )
                    return
                if self._slice_per_value(bound, value, context.origin):
                    return

    def _slice_per_value(self, bound: cst.CSTNode, value: Value, origin: str) -> bool:
        if value.kind == TENSOR and value.origins & _PER_VALUE.keys():
            self.report(
                bound,
                f"slice bound is computed from the function's data in {origin}: XLA folds it "
                "into a constant and compiles again for every distinct value",
                help="derive it from tf.shape(...), or pass it as a Python int",
                severity="warning",
            )
            return True
        return False


def _fixed_width(piece: cst.Slice) -> bool:
    """`x[i : i + k]` (and `x[i + a : i + b]`) with a constant offset between the bounds."""
    lower, upper = piece.lower, piece.upper
    if lower is None or upper is None or type(upper) is not cst.BinaryOperation:
        return False
    if type(upper.operator) not in (cst.Add, cst.Subtract):
        return False
    if upper.left.deep_equals(lower):
        return type(upper.right) in (cst.Integer, cst.Name, cst.Attribute)
    if type(lower) is cst.BinaryOperation and type(lower.operator) is cst.Add:
        return upper.left.deep_equals(lower.left)
    return False
