from __future__ import annotations

import libcst as cst

from jitlint.model.library.tf_facts import op_table
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.xla_checks import call_leaf, loop_problem, op_leaves, op_problem
from jitlint.rules.base import Rule


class XlaUnsupportedOp(Rule):
    """
    ## What it does
    Finds TensorFlow calls that create an op with no XLA kernel inside code compiled with
    XLA: a `tf.function(jit_compile=True)` (or `experimental_compile=True`), the helpers it
    calls, and the layers and steps of a Keras model compiled with `jit_compile=True`.
    Ops whose output shape depends on the data (`tf.unique`, one-argument `tf.where`,
    `tf.boolean_mask`) are not reported here: they compile on XLA CPU (JIT215, off by
    default, reports them).

    ## Why is this bad
    `jit_compile=True` means "compile all of it or fail": there is no fallback to the
    TensorFlow executor. The first call raises:

    ```text
    InvalidArgumentError: Detected unsupported operations when trying to compile graph
    __inference_f_12[_XlaMustCompile=true,...] on XLA_CPU_JIT: StringFormat (No registered
    'StringFormat' OpKernel for XLA_CPU_JIT devices compatible with node ...)
    ```

    The list of APIs comes from TensorFlow itself: `scripts/gen_xla_ops.py` traces each API
    once and checks its op types against `pywrap_xla_ops.get_cpu_kernel_names()`; the
    table shipped with jitlint records the TensorFlow version it was built with (2.21).
    Examples: `tf.print`, `tf.py_function`, `tf.numpy_function`, `tf.strings.*`,
    `tf.math.segment_sum`, `tf.linalg.slogdet`, `tf.linalg.eig`, `tf.random.gamma`,
    `tf.random.poisson`, `tf.histogram_fixed_width`, `tf.io.decode_png`,
    `tf.nn.dilation2d`. Two more need no table: iterating a `tf.data.Dataset` inside the
    compiled function (dataset ops), and `tf.where(c, "a", "b")` (a string tensor: XLA has
    no DT_STRING kernels, observed).

    The table also knows which ops have a data-dependent output shape (`Where`, `Unique`):
    they compile on XLA CPU in TF 2.21, which uses bounded dynamic shapes, so JIT215
    (`xla-dynamic-output-shape`, off by default) reports them instead.

    ## Example
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def scaled(x):
        tf.print("x:", x)  # error: JIT203
        return x * 2.0


    scaled(tf.constant([1.0, 2.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def scaled(x):
        return x * 2.0


    y = scaled(tf.constant([1.0, 2.0]))
    tf.print("y:", y)
    ```

    ## Fix safety
    The fix compiles without XLA and is unsafe: the code then runs as TensorFlow ops,
    without XLA's fusion (slower, and results may differ in the last bits). It sets
    `jit_compile=False` on the decorator of the function around the finding, or on the
    file's only `jit_compile=True`; failing both, the Keras layer holding the op gets
    `self.supports_jit = False` after `super().__init__(...)` (a model compiled with
    `jit_compile=True` then compiles without XLA). Moving the call out of the compiled
    function, or rewriting a `py_function` in TensorFlow ops, keeps XLA but changes what
    the program does, so it is left to you; the finding's help says why there is no fix
    when none is made. One op is rewritten with ops XLA compiles instead, keeping XLA on:
    `tf.histogram_fixed_width(values, value_range, nbins)` becomes
    `tf.math.unsorted_segment_sum` of ones over `tf.histogram_fixed_width_bins(...)`, the
    same bins as the kernel's. Unsafe: `values` (only a name or attribute is accepted) is
    read twice, and `nbins` must be a constant when XLA compiles.

    ## Known problems
    TensorFlow folds ops whose inputs are all constants before XLA sees them, so an
    unsupported op applied only to constants (`tf.unravel_index([3], [2, 2])`) compiles
    anyway; calls whose arguments are all numeric literals are therefore not reported
    (unless the op prints, calls Python or draws random numbers). Only the APIs in the
    shipped table are known; a Keras model counts as compiled with XLA only when
    `compile(jit_compile=True)` is in the same file as the layer or model class. Iterating
    a `tf.data.Dataset` inside XLA code (dataset ops have no kernels) is not detected yet.
    """

    code = "JIT203"
    name = "xla-unsupported-op"
    summary = "An op with no XLA kernel is used in code compiled with jit_compile=True."
    framework = "tensorflow"
    requires = ("tensorflow",)
    runtime_error = "Detected unsupported operations when trying to compile graph"
    fix_availability = "sometimes"

    VALID = (
        # The same op without XLA is fine.
        """
import tensorflow as tf
@tf.function
def f(x):
    tf.print(x)
    return tf.strings.as_string(x)
""",
        # Ops with XLA kernels.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    return tf.exp(tf.matmul(x, x)) + tf.math.unsorted_segment_sum(x, [0, 1], 2)
""",
        # Three-argument where selects elementwise: a static shape.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    return tf.where(x > 0, x, 0.0)
""",
        # jit_compile=False, and a local `print` that is not TensorFlow's.
        """
import tensorflow as tf
@tf.function(jit_compile=False)
def f(x):
    tf.print(x)
    return x
def g(x):
    tf.print(x)
""",
        # Data-dependent output shapes compile with bounded dynamic shapes (JIT215).
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    return tf.unique(x)[0], tf.where(x > 0), tf.boolean_mask(x, x > 0)
""",
        # Constant-folded before XLA sees it.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    return x + tf.cast(tf.unravel_index([3], [2, 2])[0], tf.float32)
""",
        # A dataset iterated outside XLA.
        """
import tensorflow as tf
dataset = tf.data.Dataset.range(4).batch(2)
@tf.function
def total():
    out = tf.constant(0, tf.int64)
    for batch in dataset:
        out += tf.reduce_sum(batch)
    return out
""",
        # Keras model compiled without XLA.
        """
import tensorflow as tf
class L(tf.keras.layers.Layer):
    def call(self, x):
        tf.print(x)
        return x
m = tf.keras.Sequential([L()])
m.compile(loss="mse")
""",
    )
    INVALID = (
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    tf.print(x)  # error: JIT203
    return tf.py_function(lambda v: v, [x], tf.float32)  # error: JIT203
""",
        # A dataset iterated, and a string tensor computed, under XLA.
        """
import tensorflow as tf
features = tf.data.Dataset.from_tensor_slices(tf.ones([8, 2])).batch(4)
@tf.function(jit_compile=True)
def mean(w):
    total = tf.zeros([2])
    for batch in features:  # error: JIT203
        total += tf.reduce_sum(batch * w, axis=0)
    return total, tf.where(w > 0, "pos", "neg")  # error: JIT203
""",
        # A helper called from XLA code is compiled with it.
        """
import tensorflow as tf
def helper(x):
    return tf.math.segment_sum(x, [0, 0, 1])  # error: JIT203
def step(x):
    return helper(x) * 2
fast = tf.function(step, experimental_compile=True)
""",
        # A Keras layer in a model compiled with jit_compile=True.
        """
import tensorflow as tf
from tensorflow import keras
class Debug(keras.layers.Layer):
    def call(self, inputs):
        tf.print("batch", tf.shape(inputs))  # error: JIT203
        return inputs
def build():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, Debug()(inputs))
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    return model
""",
        # A layer created and called inside an XLA function runs under XLA.
        """
import tensorflow as tf
class Upsample(tf.keras.layers.Layer):
    def call(self, x):
        tf.print("upsample", tf.shape(x))  # error: JIT203
        return x
@tf.function(jit_compile=True)
def step(x):
    return Upsample()(x)
""",
    )

    def visit_For(self, node: cst.For) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        problem = loop_problem(self.ctx, node, path)
        if problem is not None:
            self._loop(problem, graph_site(context), path)

    def _loop(self, problem, origin: str, path) -> None:  # type: ignore[no-untyped-def]
        from jitlint.fixes.xla_fix import with_xla_off_fix

        fix, help = with_xla_off_fix(
            self.ctx,
            path,
            True,
            "iterate the dataset outside the compiled function and pass each batch in",
        )
        self.report(
            problem.node,
            f"{problem.what} in {origin} creates dataset ops (ReduceDataset, ...), which "
            "have no XLA kernel; compiling fails with 'Detected unsupported operations'",
            help=help,
            fix=fix,
        )

    def visit_Call(self, node: cst.Call) -> None:
        leaf = call_leaf(node)
        if leaf is None or leaf not in op_leaves():
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not context.xla:
            return
        problem = op_problem(self.ctx, node, path)
        if problem is None:
            return
        version = op_table()[0]
        if problem.kind == "no-kernel":
            from jitlint.fixes.xla_fix import with_xla_off_fix

            fix, help = with_xla_off_fix(
                self.ctx,
                path,
                True,
                "move the call out of the XLA-compiled code, or compile without jit_compile",
            )
            # The same result from ops XLA compiles keeps the code compiled: better.
            from jitlint.fixes.xla_fix import xla_twin_fix

            fix = (
                xla_twin_fix(self.ctx, node, self.ctx.names.qualified_names(node.func, path)) or fix
            )
            self.report(
                node,
                f"`{problem.what}` creates {problem.detail}, which has no XLA kernel "
                f"(TensorFlow {version}); compiling {graph_site(context)} fails with 'Detected "
                "unsupported operations'",
                help=help,
                fix=fix,
            )
