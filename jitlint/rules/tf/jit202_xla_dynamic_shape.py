from __future__ import annotations

import libcst as cst

from jitlint.diagnostics import Severity
from jitlint.fixes.node_fix import NodeFix
from jitlint.model.tf.api import COND_LEAF, LOOP_SHAPE_LEAVES, SLICE_LEAF, reduction_leaf
from jitlint.model.tf.cond_shapes import cond_mismatch
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.xla_checks import (
    SHAPE_LEAVES,
    Problem,
    call_leaf,
    loop_shape_problem,
    ragged_problems,
    shape_problems,
    slice_call_problems,
    slice_problems,
)
from jitlint.rules.base import Rule


class XlaDynamicShape(Rule):
    """
    ## What it does
    Under XLA (`tf.function(jit_compile=True)`, or a Keras model compiled with
    `jit_compile=True`), checks the arguments XLA needs as compile-time constants: shapes,
    sizes, `multiples`, `repeats`, `depth`, `axis`, `perm`, `num_segments`, `fft_length`,
    ... of `tf.tile`, `tf.repeat`, `tf.reshape`, `tf.fill`, `tf.zeros`, `tf.range`,
    `tf.one_hot`, the reductions, `tf.math.unsorted_segment_sum`, `tf.signal.rfft` and
    about 60 more. The table is generated from TensorFlow (`scripts/gen_xla_constants.py`
    compiles each API under XLA with each argument computed inside the function, and
    keeps those XLA refuses), so it includes implicit ones: `tf.math.bincount`'s output
    size is `max(arr) + 1`, so its data `arr` must be a constant too, even with
    `minlength`/`maxlength` given. `tf.slice`'s size, `tf.math.top_k`'s `k` and
    `tf.image.crop_to_bounding_box`'s box compile with computed values on XLA:CPU
    (TensorFlow 2.21) and are not checked.

    - fed by a loop variable (`for i in tf.range(n)`, a `tf.while_loop` body's variables)
      or a stateful random op: an error, XLA cannot compile it;
    - fed by data computed from the function's arguments (or a `tf.Variable`): a warning,
      XLA silently compiles a new program for every distinct value;
    - a Python slice whose size changes with a loop variable inside an XLA loop: a warning,
      the result has a dynamic shape (not when it is reduced to a scalar where it stands,
      `tf.reduce_sum(w * x[: i + 1])`, which compiles).

    Also an error: `shape_invariants=` with an unknown dimension (`tf.TensorShape([None])`)
    on a `tf.while_loop` or in `tf.autograph.experimental.set_loop_options`, which says a
    loop variable changes shape between iterations: graph mode runs it, XLA fails with
    "Input and output shapes of loop body do not match" (observed, TensorFlow 2.21 XLA:CPU).

    Also a warning: a `tf.cond` whose branches provably return different shapes (one returns
    a value, the other the same value grown by `tf.repeat`/`tf.tile`/`tf.concat`/`tf.pad`).
    XLA compiles it, but the result gets a bounded dynamic dimension that later ops such as
    `tf.signal.fft2d` cannot take (observed, TensorFlow 2.21 XLA:CPU: "Asked to propagate a
    dynamic dimension ... which is not implemented").

    Values derived from `tf.shape(x)`, `x.shape` and Python ints are constants per
    compilation and are fine, unless `x`'s own shape depends on the data: the size of a
    slice with loop-carried bounds, of `tf.unique`'s or `tf.boolean_mask`'s result (also
    when it reaches a helper as an argument, a helper's result, or a Keras layer created
    and called in the loop) is never a constant. XLA bounds such a size from above, so it
    still compiles where the generated table says XLA takes a bound (the size arguments
    of `tf.reshape`, `tf.zeros`/`ones`/`fill`, `tf.tile`, `tf.repeat`, `tf.range`'s
    limits, `tf.pad`, `tf.broadcast_to`, `tf.eye`, most random ops, `num_segments`), also
    in sums and products; a quotient (`tf.shape(chunk)[0] // n`) or an argument that needs
    an exact constant (`tf.one_hot`'s depth, `tf.linspace`'s num, `tf.range`'s delta, an
    axis) fails (observed, TensorFlow 2.21 XLA:CPU). A reduction of a
    RaggedTensor made from data (`tf.ragged.boolean_mask`) needs its row lengths as
    constants and fails too (reported where the RaggedTensor is made;
    `tf.ragged.map_flat_values` keeps the rows it is given and makes none).

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
    The fix compiles without XLA, as JIT203's does (`jit_compile=False` where the switch is,
    or `self.supports_jit = False` in the Keras layer holding the code): unsafe, the code
    then runs as TensorFlow ops without XLA's fusion. Keeping XLA depends on the intent:
    derive sizes from `tf.shape(...)`, unroll with Python `range` when the trip count is
    small, use a fixed-width window (`x[i:i + 2]`), or pass the size as a Python int.

    ## Known problems
    Values are followed through assignments inside the function, through TensorFlow ops,
    and, for data-dependent shapes, into module helpers' parameters and out of their
    results (joined over every caller: flow-insensitive). A compiled function that the
    module calls only from compiled code, and names nowhere else, takes its parameters from
    those calls (a Python int passed there is a constant); a call from another module is
    not seen, so a library's nested function that users call with tensors is not reported.
    Whether a dynamic-size slice compiles depends on the backend: TensorFlow 2.21 on XLA
    CPU compiles it with bounded dynamic shapes.
    """

    code = "JIT202"
    name = "xla-dynamic-shape"
    summary = "A shape argument under XLA is not a compile-time constant."
    framework = "tensorflow"
    requires = ("tensorflow",)
    runtime_error = "must be a compile-time constant"
    fix_availability = "sometimes"

    VALID = (
        # `tf.ragged.map_flat_values` keeps the rows of the RaggedTensor it is given, here
        # written out: reducing its result needs no row length made from data.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def check_nodes(flat):
    msg = tf.RaggedTensor.from_row_lengths(flat, [2, 1, 3])
    signs = tf.ragged.map_flat_values(tf.sign, msg)
    return tf.reduce_prod(signs, axis=1)
""",
        # A compiled function that the module calls only from compiled code (TF traces it
        # into the caller's graph): its sizes are what the callers pass, a Python int and a
        # size from tf.shape, constants there (observed on TF 2.21: one XLA program for
        # calls with new data). The callers run it as a method inherited from a base class.
        """
import tensorflow as tf
class Splitter:
    @staticmethod
    @tf.function(jit_compile=True)
    def width(masks):
        return tf.reduce_prod(tf.shape(masks)[1:])
    @staticmethod
    @tf.function(jit_compile=True)
    def split(values, head, width):
        head = tf.cast(head, tf.int32)
        first = values[:head]
        return first, tf.reshape(values[head * 2 :], tf.stack([width, head]))
class SumSplitter(Splitter):
    @tf.function(jit_compile=True)
    def __call__(self, masks, values, head: int):
        first, rest = self.split(values, head, self.width(masks))
        return tf.reduce_sum(first) + tf.reduce_sum(rest)
""",
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
        # Branches of the same shape, and a repeat that keeps the size.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(t, images):
    b = tf.shape(images)[0]
    a = tf.cond(b > 2, lambda: t * 2.0, lambda: t)
    c = tf.cond(b > 2, lambda: tf.repeat(t, 1, axis=0), lambda: t)
    return a + c
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
        # shape_invariants without XLA (graph mode runs it), or with every dimension known.
        """
import tensorflow as tf
@tf.function
def grow(x):
    def body(i, a):
        return i + 1, tf.concat([a, a[:1]], 0)
    return tf.while_loop(
        lambda i, a: i < 3, body, [0, x],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
    )[1]
@tf.function(jit_compile=True)
def keep(x):
    def body(i, a):
        return i + 1, a * 2.0
    return tf.while_loop(
        lambda i, a: i < 3, body, [0, x],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([2])],
    )[1]
""",
        # Arguments XLA takes computed (not in the generated table): a tf.slice reduced
        # where it stands, top_k's k, a crop box; bincount of a shape-derived constant.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a, img):
    def body(i, acc):
        acc = acc + tf.reduce_sum(tf.slice(a, [0], [i + 1]))
        top = tf.math.top_k(a, k=i + 1).values
        box = tf.image.crop_to_bounding_box(img, 0, 0, i + 1, 2)
        return i + 1, acc + tf.reduce_sum(top) + tf.reduce_sum(box)
    counts = tf.math.bincount(tf.range(tf.shape(a)[0]), minlength=4, maxlength=4)
    return tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0]), counts
""",
    )
    INVALID = (
        # Rows made from data stay so through `tf.ragged.map_flat_values`: reported where
        # they are made.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def masked_sums(flat, mask):
    picked = tf.ragged.boolean_mask(flat, mask)  # error: JIT202
    scaled = tf.ragged.map_flat_values(tf.abs, picked)
    return tf.reduce_sum(scaled, axis=1)
""",
        # The same nested function, given data: by its caller's argument, and by an eager
        # call with a tensor (each distinct value compiles again).
        """
import tensorflow as tf
class Splitter:
    @staticmethod
    @tf.function(jit_compile=True)
    def split(values, head):
        return values[: tf.cast(head, tf.int32)]  # error: JIT202
    @tf.function(jit_compile=True)
    def __call__(self, values, head):
        return tf.reduce_sum(self.split(values, head))
@tf.function(jit_compile=True)
def first(values, head):
    return values[: tf.cast(head, tf.int32)]  # error: JIT202
@tf.function(jit_compile=True)
def total(values):
    return tf.reduce_sum(first(values, 4))
def eager(values):
    return first(values, tf.constant(4))
""",
        # Loop variables that change shape, declared by shape_invariants: XLA refuses them.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def grow(x):
    def body(i, a):
        return i + 1, tf.concat([a, a[:1]], 0)
    return tf.while_loop(
        lambda i, a: i < 3, body, [0, x],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],  # error: JIT202
    )[1]
@tf.function(jit_compile=True)
def grow_autograph(x):
    a = x
    for i in tf.range(3):
        tf.autograph.experimental.set_loop_options(
            shape_invariants=[(a, tf.TensorShape([None]))]  # error: JIT202
        )
        a = tf.concat([a, a[:1]], 0)
    return a
""",
        # bincount's output size is max(arr) + 1: the data itself must be a constant
        # (generated table), even with minlength/maxlength; a loop variable never is.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def histogram(labels):
    def body(i, acc):
        counts = tf.math.bincount(labels + i, minlength=4, maxlength=4)  # error: JIT202
        return i + 1, acc + tf.cast(counts, tf.float32)
    return tf.while_loop(lambda i, acc: i < 2, body, [0, tf.zeros([4])])[1]
""",
        # The same from the function's argument: compiled again for every distinct value.
        """
import tensorflow as tf
@tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None], tf.int32)])
def class_weights(labels):
    counts = tf.math.bincount(labels, minlength=10, maxlength=10)  # error: JIT202
    return 1.0 / tf.cast(counts + 1, tf.float32)
""",
        # An axis computed in a loop: XLA needs every axis as a constant.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def alternate(m):
    def body(i, acc):
        return i + 1, acc + tf.reduce_sum(tf.math.cumsum(m, axis=i % 2))  # error: JIT202
    return tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0])[1]
""",
        # Branches of different shapes: the result has a bounded dynamic dimension.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(t, images):
    b, tb = tf.shape(images)[0], tf.shape(t)[0]
    def grow():
        return tf.repeat(t, b // tb, axis=0)
    out = tf.cond(b > tb, grow, lambda: t)  # error: JIT202
    return tf.signal.fft2d(tf.cast(out, tf.complex64))
""",
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a):
    n = tf.random.uniform([], 1, 3, dtype=tf.int32)
    return tf.zeros([n])  # error: JIT202
""",
        # The size of a data-dependent shape; a ragged reduction.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def prototypes(z, labels):
    classes, idx = tf.unique(labels)
    onehot = tf.one_hot(idx, tf.size(classes))  # error: JIT202
    kept = tf.ragged.boolean_mask(z, z > 0)  # error: JIT202
    return onehot, tf.reduce_mean(kept, axis=-1)
""",
        # A helper receives a slice whose size grows with the loop variable.
        """
import tensorflow as tf
def repeat_rows(images, rows):
    return tf.repeat(rows, tf.shape(images)[0] // tf.shape(rows)[0], axis=0)  # error: JIT202
@tf.function(jit_compile=True)
def chunks(images, rows):
    def body(i, acc):
        end = tf.minimum(i + 3, tf.shape(images)[0])
        chunk = images[i:end]  # error: JIT202
        return end, acc + tf.reduce_sum(repeat_rows(chunk, rows))
    return tf.while_loop(lambda i, acc: i < 9, body, [0, 0.0])
""",
        # Data-dependent counts: recompiles per value (warning).
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(a):
    counts = tf.cast(a, tf.int32)
    return tf.repeat(a, counts)  # error: JIT202
""",
        # while_loop body variables: a tf.slice whose size changes with a loop variable.
        """
import tensorflow as tf
def step(a):
    def body(i, acc):
        part = tf.slice(a, [0], [i + 1])  # error: JIT202
        acc = acc + tf.reduce_sum(part)
        head = a[: i + 1]  # error: JIT202
        return i + 1, acc + tf.reduce_sum(head)
    return tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0])
f = tf.function(step, jit_compile=True)
""",
    )

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        help: str | None = None,
        severity: Severity | None = None,
        fix: NodeFix | None = None,
    ) -> None:
        """Every finding gets the fix that compiles without XLA, or says why not."""
        if fix is None:
            from jitlint.fixes.xla_fix import with_xla_off_fix

            fix, help = with_xla_off_fix(self.ctx, self.ctx.path_to(node), True, help)
        super().report(node, message, help=help, severity=severity, fix=fix)

    def visit_Call(self, node: cst.Call) -> None:
        leaf = call_leaf(node)
        if leaf == COND_LEAF:
            self._cond(node)
            return
        if leaf in LOOP_SHAPE_LEAVES:
            self._loop_shape(node)
            return
        if leaf not in SHAPE_LEAVES and leaf != SLICE_LEAF and not reduction_leaf(leaf):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        for problem in shape_problems(self.ctx, node, path) + slice_call_problems(
            self.ctx, node, path
        ):
            self._report(problem, graph_site(context))
        for problem in ragged_problems(self.ctx, node, path):
            self.report(
                problem.node,
                f"this RaggedTensor is reduced by `{problem.what}` in {graph_site(context)}: a "
                "ragged reduction builds ranges whose sizes are the row lengths, which XLA "
                "needs as compile-time constants ('Range must be a compile-time constant')",
                help="keep a dense tensor and a mask: tf.where(mask, x, 0) and sums of the mask",
            )

    def _loop_shape(self, node: cst.Call) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        problem = loop_shape_problem(self.ctx, node, path)
        if problem is None:
            return
        self.report(
            problem.node,
            f"these `shape_invariants` of `{problem.what}` leave a dimension unknown: a loop "
            f"variable changes shape between iterations in {graph_site(context)}, which graph mode "
            "allows and XLA does not ('Input and output shapes of loop body do not match')",
            help="keep the loop variables' shapes fixed: preallocate to the largest size and "
            "write with tf.tensor_scatter_nd_update, or use a TensorArray of fixed size",
        )

    def _cond(self, node: cst.Call) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        found = cond_mismatch(self.ctx, node, path)
        if found is None:
            return
        self.report(
            node,
            f"the branches of this `tf.cond` return different shapes in {graph_site(context)}: "
            f"{found.detail}. XLA gives the result a bounded dynamic "
            "dimension, which later ops such as `tf.signal.fft2d` cannot take ('Asked to "
            "propagate a dynamic dimension ... which is not implemented')",
            help="make both branches return the same shape, or decide the branch in Python "
            "from static shapes",
            severity="warning",
        )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not any(type(e.slice) is cst.Slice for e in node.slice):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        for problem in slice_problems(self.ctx, node, path):
            self._report(problem, graph_site(context))

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
