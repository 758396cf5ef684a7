from __future__ import annotations

from functools import cached_property

import libcst as cst

from jitlint.diagnostics import Severity
from jitlint.fixes.node_fix import NodeFix
from jitlint.model.library.tf_facts import op_table
from jitlint.model.tf.api import COND_LEAF, reduction_leaf
from jitlint.model.tf.compile_flag import xla_when
from jitlint.model.tf.cond_shapes import cond_mismatch
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.xla_checks import (
    SHAPE_LEAVES,
    Problem,
    call_leaf,
    loop_problem,
    op_leaves,
    op_problem,
    ragged_problems,
    shape_problems,
    slice_problems,
)
from jitlint.rules.base import Rule

_HELP = (
    "set `self.supports_jit = False` in the layer's `__init__` (Keras then never compiles the "
    "model with XLA), pass `jit_compile=False` to `compile`, or keep the op out of the model"
)


class KerasAutoJit(Rule):
    """
    ## What it does
    Finds what XLA cannot compile in the code of a Keras layer, model, loss or metric that a
    Keras 3 model runs at its default `jit_compile="auto"`: a `call`, `train_step`,
    `Loss.call` or `Metric.update_state`, and the helpers they call, in any module.

    - an op with no XLA kernel (`tf.print`, `tf.py_function`, `tf.numpy_function`,
      `tf.strings.*`, `tf.nn.dilation2d`, `tf.histogram_fixed_width`, ...: the table JIT203
      uses, generated from TensorFlow);
    - a shape, size or count argument fed by a loop variable or a stateful random op, or by
      a quotient of a data-dependent size (`tf.repeat(t, tf.shape(chunk)[0] // n)` where
      `chunk` is a slice with loop-carried bounds), which XLA needs as a compile-time
      constant;
    - a slice whose size changes with a loop variable (a warning under JIT202 as well).

    A model counts as "left at the default" when it is compiled without `jit_compile` (or
    with `jit_compile="auto"`), built (`Sequential`, `Model(inputs, outputs)`) without a
    visible `compile`, or, for a layer that no file of the run uses, when Keras models would
    run it at their default.

    The same is reported for a model compiled with a `jit_compile` chosen at run time
    (`jit_compile=use_xla`, read from an environment variable, a config or a command-line
    flag): XLA compiles it in every run where that value is true, the configuration the
    project itself offers. A name bound only to `False` (`USE_XLA = False`) is off.

    ## Why is this bad
    Keras 3 resolves `jit_compile="auto"` when `fit`, `evaluate` or `predict` first runs:
    on the TensorFlow backend it turns XLA on when a GPU or TPU is visible and every layer
    has `supports_jit` true, and leaves it off on a CPU-only machine (keras
    `Trainer._resolve_auto_jit_compile`). The same script therefore passes every test on a
    laptop or a CPU CI runner and fails on the first GPU run:

    ```text
    InvalidArgumentError: Graph execution error: Detected at node
    functional_1/probe_1/PrintV2 ... Detected unsupported operations when trying to compile
    graph ... on XLA_GPU_JIT: PrintV2
    ```

    What was observed (TensorFlow 2.21, Keras 3.15, CPU only): with the default, `fit` runs
    and `model.jit_compile` is `False` afterwards; the same model compiled with
    `jit_compile=True`, which is what "auto" becomes on a GPU, fails with "Detected
    unsupported operations" (`EagerPyFunc` for `tf.py_function`, `PrintV2` for `tf.print`).
    The failure on a GPU itself is documented (keras-team/keras#18456 for `CudnnRNN`,
    keras-team/tf-keras#418 for lookup layers) and was not run here: no GPU was available.

    Also observed on CPU (TensorFlow 2.21, `jit_compile=True` standing in for what "auto"
    becomes on a GPU): in a `tf.while_loop` slicing `x[i:end]`, the slice's size `k` compiles
    as a shape or count (`tf.zeros([k + 1])`, `tf.reshape(b, [k, 2, 2])`, `tf.repeat(t,
    k * 2)`: XLA bounds it from above), while `k // n` fails ("Input 1 to node
    `while/Repeat/Tile` with op Tile must be a compile-time constant"), and so does `k`
    itself as a `tf.one_hot` depth. PtychoPINN's translation layer fails that way (the
    `ptychopinn-translation-inference` seed, reproduced on CPU with `jit_compile=True`).

    Not confirmed: that Keras' "auto" really turns XLA on for these models on a GPU (the
    Keras source says it does when every layer supports it), and GPU-only XLA failures
    such as the DynamicPadder RET_CHECK PtychoPINN hit on an `einsum` over a bounded
    dynamic batch, which XLA:CPU compiles.

    ## Example
    ```python
    import numpy as np
    import tensorflow as tf
    from tensorflow import keras


    class Probe(keras.layers.Layer):
        def call(self, inputs):
            tf.print("batch mean:", tf.reduce_mean(inputs))  # error: JIT213
            return inputs


    model = keras.Sequential([keras.Input((4,)), Probe(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 4), "float32")
    model.fit(x, x[:, :1], epochs=1, verbose=0)
    ```

    ## Use instead
    ```python
    import numpy as np
    import tensorflow as tf
    from tensorflow import keras


    class Probe(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_jit = False  # "auto" then never compiles the model with XLA

        def call(self, inputs):
            tf.print("batch mean:", tf.reduce_mean(inputs))
            return inputs


    model = keras.Sequential([keras.Input((4,)), Probe(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 4), "float32")
    model.fit(x, x[:, :1], epochs=1, verbose=0)
    ```

    ## Fix safety
    The fix is unsafe: it gives up XLA. The layer holding the op gets
    `self.supports_jit = False` after its `super().__init__(...)` (Keras built-in lookup
    layers do this), which keeps a model holding it off XLA; so does the layer whose methods
    alone run a helper of the same file that holds the op. A layer without `__init__` gets
    one that passes every argument on to its base's (`def __init__(self, *args, **kwargs)`).
    Where the op is in no layer of the file (a loss, a helper several layers share), the
    file's only `compile(...)` of a model gets `jit_compile=False`. A `compile(...)` whose
    `jit_compile` is chosen at run time is left alone (replacing it would take the option
    away); the layer fix keeps a model holding the layer off XLA whatever that value says.
    Removing the op (a debugging `tf.print`) or rewriting it in XLA-compatible ops keeps
    XLA, and is left to you.

    ## Known problems
    Where a model is compiled is found through the files of the run: a layer created where
    a model is built and compiled without `jit_compile`, or a layer no file uses, counts as
    running at "auto". A `jit_compile` that is not a literal, nor a name bound only to one
    literal, is taken to be true in some runs: a value that is always false in practice
    (a flag nobody sets) still gets its findings. Keras 2 (`tf_keras`) has no "auto" and is
    never reported, not even with a run-time `jit_compile`; nor is any file linted for Keras 2
    (`keras-version` below 3, or with no Keras version declared, a `tensorflow-version`
    below 2.16, whose `tf.keras` is Keras 2, or a project that sets `TF_USE_LEGACY_KERAS`:
    README, "Framework versions"; also a file that sets `os.environ["TF_USE_LEGACY_KERAS"] =
    "1"` itself), nor any file of a project that leaves the Keras major undecided (an open
    range such as `tensorflow>=2.6`, or nothing declared about TensorFlow, and no code that
    only Keras 3 runs: set `keras-version` to decide). Whether a GPU build of
    TensorFlow has a kernel that the CPU table lacks is not known statically; the table is
    the CPU one.
    """

    code = "JIT213"
    name = "keras-auto-jit"
    summary = 'An op XLA cannot compile in a Keras model left at jit_compile="auto".'
    severity = "warning"
    framework = "tensorflow"
    requires = ("keras",)
    fix_availability = "sometimes"
    runtime_error = None  # passes on CPU; fails only where XLA turns on (GPU/TPU)

    VALID = (
        # An explicit jit_compile=False keeps XLA off everywhere.
        """
import tensorflow as tf
from tensorflow import keras
class Probe(keras.layers.Layer):
    def call(self, x):
        tf.print(x)
        return x
model = keras.Sequential([keras.Input((4,)), Probe()])
model.compile(loss="mse", jit_compile=False)
""",
        # The layer opts out of XLA.
        """
import tensorflow as tf
from tensorflow import keras
class Lookup(keras.layers.Layer):
    supports_jit = False
    def call(self, x):
        return tf.strings.as_string(x)
""",
        # XLA-compatible ops; tf_keras (Keras 2) has no "auto".
        """
import tensorflow as tf
import tf_keras
from tensorflow import keras
class Scale(keras.layers.Layer):
    def call(self, x):
        return tf.exp(x) * tf.cast(tf.shape(x)[0], x.dtype)
class Legacy(tf_keras.layers.Layer):
    def call(self, x):
        return tf.py_function(lambda v: v, [x], tf.float32)
""",
        # A run-time switch bound to False only keeps XLA off.
        """
import tensorflow as tf
from tensorflow import keras
USE_XLA = False
class Probe(keras.layers.Layer):
    def call(self, x):
        tf.print(x)
        return x
model = keras.Sequential([keras.Input((4,)), Probe()])
model.compile(loss="mse", jit_compile=USE_XLA)
""",
        # Used only in a custom training loop, never in a Keras model.
        """
import tensorflow as tf
from tensorflow import keras
class Debug(keras.layers.Layer):
    def call(self, x):
        tf.print(x)
        return x
layer = Debug()
@tf.function
def step(x):
    return layer(x)
""",
    )
    INVALID = (
        # A tf.cond whose branches return different shapes, in a layer's call.
        """
import tensorflow as tf
import keras
class Broadcast(keras.layers.Layer):
    def call(self, inputs):
        images, t = inputs
        b, tb = tf.shape(images)[0], tf.shape(t)[0]
        return tf.cond(b > tb, lambda: tf.concat([t, t], axis=0), lambda: t)  # error: JIT213
""",
        """
import tensorflow as tf
import keras
class Median(keras.layers.Layer):
    def call(self, x):
        y = tf.py_function(lambda v: v, [x], x.dtype)  # error: JIT213
        return tf.ensure_shape(y, x.shape)
def build():
    model = keras.Sequential([keras.Input((20,)), Median(), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    return model
""",
        # A helper called from call, and a loss given to compile.
        """
import tensorflow as tf
import keras
def hashed(ids, buckets):
    return tf.strings.to_hash_bucket_fast(tf.strings.as_string(ids), buckets)  # error: JIT213
class Hasher(keras.layers.Layer):
    def call(self, ids):
        return hashed(ids, 32)
def noisy_loss(y_true, y_pred):
    tf.print("loss inputs", y_true)  # error: JIT213
    return tf.reduce_mean(tf.square(y_true - y_pred))
model = keras.Sequential([keras.Input((3,), dtype="int64"), Hasher()])
model.compile(optimizer="adam", loss=noisy_loss)
""",
        # A model compiled with XLA where an environment variable asks for it.
        """
import os
import tensorflow as tf
import keras
class Probe(keras.layers.Layer):
    def call(self, x):
        tf.print("batch mean", tf.reduce_mean(x))  # error: JIT213
        return x
def build():
    model = keras.Sequential([keras.Input((4,)), Probe()])
    model.compile(loss="mse", jit_compile=os.environ.get("USE_XLA") == "1")
    return model
""",
        # A size fed by a loop variable.
        """
import tensorflow as tf
import keras
class Staircase(keras.layers.Layer):
    def call(self, x):
        total = tf.zeros([])
        for i in tf.range(3):
            total += tf.reduce_sum(tf.ones([i + 1]))  # error: JIT213
        return x * total
""",
    )

    @cached_property
    def keras_has_auto(self) -> bool:
        """Keras 2 has no "auto": it compiles a model with XLA only when `jit_compile` says
        so; the model knows which Keras the file targets (undecided: not Keras 3's "auto"),
        and asks the project's code only now, once a candidate is seen."""
        return self.ctx.tf.keras_auto_jit

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        help: str | None = None,
        severity: Severity | None = None,
        fix: NodeFix | None = None,
    ) -> None:
        """Every finding gets the fix that keeps the model off XLA, or says why not."""
        if fix is None:
            path = self.ctx.path_to(node)
            context = self.ctx.tf.context(path)
            layer = context.layer if context is not None else None
            from jitlint.fixes.xla_fix import with_xla_off_fix

            fix, help = with_xla_off_fix(self.ctx, path, False, help, layer)
        super().report(node, message, help=help, severity=severity, fix=fix)

    def visit_For(self, node: cst.For) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or context.xla or not context.auto_xla or not self.keras_has_auto:
            return
        problem = loop_problem(self.ctx, node, path)
        if problem is not None:
            self._loop(problem, graph_site(context))

    def _loop(self, problem: Problem, origin: str) -> None:
        self.report(
            problem.node,
            f"{problem.what} in {origin} creates dataset ops, which have no XLA kernel: "
            f"{xla_when(origin)}, and there it fails with 'Detected unsupported operations'",
            help=_HELP,
        )

    def visit_Call(self, node: cst.Call) -> None:
        leaf = call_leaf(node)
        if leaf is None or (
            leaf not in op_leaves()
            and leaf not in SHAPE_LEAVES
            and not reduction_leaf(leaf)
            and leaf != COND_LEAF
        ):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or context.xla or not context.auto_xla or not self.keras_has_auto:
            return
        if leaf == COND_LEAF:
            mismatch = cond_mismatch(self.ctx, node, path)
            if mismatch is not None:
                self.report(
                    node,
                    f"the branches of this `tf.cond` return different shapes in "
                    f"{graph_site(context)}: {mismatch.detail}. "
                    f"{xla_when(graph_site(context))}, and "
                    "there the result gets a bounded dynamic dimension, which later ops such "
                    "as `tf.signal.fft2d` cannot take",
                    help="make both branches return the same shape",
                )
            return
        problem = op_problem(self.ctx, node, path)
        if problem is not None and problem.kind == "no-kernel":
            self.report(
                node,
                f"`{problem.what}` creates {problem.detail}, which has no XLA kernel "
                f"(TensorFlow {op_table()[0]}), in {graph_site(context)}: "
                f"{xla_when(graph_site(context))}, and there it fails with 'Detected unsupported "
                "operations'",
                help=_HELP,
            )
        for shape in shape_problems(self.ctx, node, path):
            if shape.kind == "never-constant":
                self._never_constant(shape, graph_site(context))
        for ragged in ragged_problems(self.ctx, node, path):
            self.report(
                ragged.node,
                f"this RaggedTensor is reduced by `{ragged.what}` in {graph_site(context)}: "
                f"{xla_when(graph_site(context))}, and there the ragged reduction fails ('Range "
                "must be a compile-time constant')",
                help=_HELP,
            )

    def _never_constant(self, problem: Problem, origin: str) -> None:
        self.report(
            problem.node,
            f"{problem.what} depends on {problem.detail}, so it is not a compile-time "
            f"constant, in {origin}: {xla_when(origin)}, and there it fails ('must be a "
            "compile-time constant')",
            help="derive it from tf.shape(...), or unroll with a Python range",
        )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not any(type(e.slice) is cst.Slice for e in node.slice):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or context.xla or not context.auto_xla or not self.keras_has_auto:
            return
        for problem in slice_problems(self.ctx, node, path):
            if problem.kind == "loop-slice":
                self.report(
                    problem.node,
                    f"slice bound depends on a loop variable in {graph_site(context)}: "
                    f"{xla_when(graph_site(context))}, "
                    "and there the slice's size changes every iteration, a dynamic shape "
                    "XLA supports only as a bounded dynamic shape",
                    help="use a fixed-width window x[i : i + k], tf.gather, or a mask",
                )
