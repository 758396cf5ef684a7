from __future__ import annotations

import libcst as cst

from jitlint.model.library.tf_facts import op_table
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.xla_checks import call_leaf, op_leaves, op_problem
from jitlint.rules.base import Rule


class XlaDynamicOutputShape(Rule):
    """
    ## What it does
    Finds ops whose output shape depends on the data (`tf.unique`, one-argument `tf.where`,
    `tf.boolean_mask`, `tf.ragged.boolean_mask`) in code compiled with XLA
    (`jit_compile=True`, or a Keras model compiled with it). Off by default: enable it with
    `extend-select = ["JIT215"]` where the code must also compile on backends without
    bounded dynamic shapes.

    ## Why is this bad
    XLA compiles for static shapes. TensorFlow 2.21 compiles these ops on XLA CPU with
    *bounded* dynamic shapes (observed: `tf.unique`, `tf.where(c)`, `tf.boolean_mask` and
    `tf.gather_nd(x, tf.where(c))` all compile and return the right values), which is why
    they are not reported by default. Older releases, and some backends, refuse them:

    ```text
    InvalidArgumentError: No registered 'Where' OpKernel for XLA_CPU_JIT devices
    ```

    (tensorflow/tensorflow#24476, documented). A bounded dynamic dimension may also fail
    later, in an op that cannot take one: "Asked to propagate a dynamic dimension ... to
    hlo fft ... which is not implemented" (observed with `tf.signal.fft2d`).

    ## Example
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def positive_mean(x):
        return tf.reduce_mean(tf.boolean_mask(x, x > 0))  # error: JIT215


    positive_mean(tf.constant([1.0, -2.0, 3.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def positive_mean(x):
        mask = tf.cast(x > 0, x.dtype)
        return tf.reduce_sum(x * mask) / tf.reduce_sum(mask)


    positive_mean(tf.constant([1.0, -2.0, 3.0]))
    ```

    ## Fix safety
    No automatic fix: a static-shape rewrite (a mask, a padded size) changes what the code
    computes with the masked-out elements.

    ## Known problems
    The ops are taken from the generated XLA op table (TensorFlow 2.21). Whether the
    backend in use supports bounded dynamic shapes is not known statically.
    """

    code = "JIT215"
    name = "xla-dynamic-output-shape"
    summary = "An op with a data-dependent output shape in code compiled with XLA."
    severity = "warning"
    framework = "tensorflow"
    tier = 2
    default_enabled = False
    requires = ("tensorflow",)
    runtime_error = None  # compiles on XLA CPU with TensorFlow 2.21

    VALID = (
        # The same ops without XLA, and tf.where selecting elementwise.
        """
import tensorflow as tf
@tf.function
def f(x):
    return tf.unique(x)[0], tf.boolean_mask(x, x > 0)
@tf.function(jit_compile=True)
def g(x):
    return tf.where(x > 0, x, 0.0)
""",
    )
    INVALID = (
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    return tf.unique(x)[0], tf.where(x > 0)  # error: JIT215
""",
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
        if problem is not None and problem.kind == "dynamic-output":
            self.report(
                node,
                f"`{problem.what}` has a data-dependent output shape in {graph_site(context)}: XLA "
                f"compiles it only as a bounded dynamic shape (TensorFlow {op_table()[0]} on "
                "CPU does; older releases and other backends raise 'No registered ... "
                "OpKernel')",
                help="keep a static shape: a mask with tf.where(c, x, 0), or a padded size",
            )
