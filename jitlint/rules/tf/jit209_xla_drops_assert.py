from __future__ import annotations

import libcst as cst

from jitlint.model.tf.api import (
    DROPPED_CHECK_LEAVES,
    canonical,
    checks_constants_while_tracing,
    dropped_check,
)
from jitlint.model.tf.compile_flag import xla_when
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.xla_checks import call_leaf
from jitlint.python.names import python_valued
from jitlint.rules.base import Rule


class XlaDropsAssert(Rule):
    """
    ## What it does
    Finds TensorFlow run-time checks (`tf.debugging.assert_equal`, `assert_positive`,
    `assert_less`, ..., `tf.debugging.check_numerics`, `tf.Assert`) in code that XLA
    compiles: a `tf.function(jit_compile=True)`, a Keras model compiled with
    `jit_compile=True`, and the helpers they call in any module. In the code of a Keras
    model left at the default `jit_compile="auto"` it says that the check is dropped where
    Keras turns XLA on (a GPU or TPU); in a model compiled with a `jit_compile` chosen at
    run time (an environment variable, a config), in the runs where that value is true.
    A comparison (`assert_equal`, `assert_less`, ...) whose compared values are Python
    values whatever the names hold (literals, `n is not None`, `and`/`or`/`not` of them)
    is not reported: TensorFlow checks constant inputs right there and raises while
    tracing, under XLA too.

    ## Why is this bad
    XLA has kernels for `Assert` and `CheckNumerics` that do nothing. Under
    `jit_compile=True` the check never fires: the function returns its result, NaNs
    included, with no error and no warning (TensorFlow logs "Ignoring Assert operator" at
    most). The same function without XLA raises `InvalidArgumentError: assertion failed`.
    Observed with TensorFlow 2.21 on CPU: `tf.debugging.assert_positive(a - 10.0)` and
    `tf.debugging.check_numerics(tf.math.log(a - 10.0), "bad")` in a
    `tf.function(jit_compile=True)` both return without raising.

    ## Example
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def safe_log(x):
        tf.debugging.assert_positive(x, message="log of a non-positive value")  # error: JIT209
        return tf.math.log(x)


    print(safe_log(tf.constant([1.0, -1.0])))  # [0. nan], no error
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def safe_log(x):
        return tf.math.log(x)


    x = tf.constant([1.0, 2.0])
    tf.debugging.assert_positive(x, message="log of a non-positive value")  # outside XLA
    print(safe_log(x))
    ```

    ## Fix safety
    No automatic fix: the check has to move out of the compiled function (before the call,
    or on its result), or the code has to handle the bad values (`tf.where`), and which is
    right depends on the program.

    ## Known problems
    Checks that TensorFlow makes on static shapes and dtypes while tracing
    (`assert_type`, `assert_rank`, `assert_shapes`, ...) do run and are not reported; an
    `assert_equal` whose operands are constant while tracing (two fully static shapes) is
    also decided then, which the rule does not tell apart. Checks of wrapper libraries
    (TensorFlow Probability's `assert_util`) are not followed. Under the Keras default the
    finding depends on the machine: on a CPU-only machine the check runs. The default is
    XLA only in Keras 3: in a file linted for Keras 2, or in a project that leaves the Keras
    major undecided (README, "Framework versions"), only an explicit `jit_compile=True`
    counts.
    """

    code = "JIT209"
    name = "xla-drops-assert"
    summary = "A tf.debugging assertion under XLA is compiled as a no-op and never fires."
    severity = "warning"
    framework = "tensorflow"
    tier = 2
    requires = ("tensorflow",)
    runtime_error = None  # the hazard is that nothing is raised

    VALID = (
        # The compared values are Python values while tracing: TensorFlow checks them right
        # there and raises then, under XLA too (sionna's calculate_tb_size).
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def sizes(x, num_prbs=None, num_symbols=None):
    tf.debugging.assert_equal(
        (num_prbs is not None) and (num_symbols is not None), True,
        message="num_prbs and num_symbols must be given")
    tf.debugging.assert_less(3, 14, "a written-out bound")
    return x * 2
""",
        # Without XLA the check runs.
        """
import tensorflow as tf
@tf.function
def f(x):
    tf.debugging.assert_positive(x)
    return tf.math.log(x)
""",
        # Static checks run while tracing, under XLA too.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    tf.debugging.assert_type(x, tf.float32)
    tf.debugging.assert_rank(x, 1)
    return x
""",
        # Outside the compiled function.
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    return tf.math.log(x)
def g(x):
    tf.debugging.assert_positive(x)
    return f(x)
""",
    )
    INVALID = (
        """
import tensorflow as tf
@tf.function(jit_compile=True)
def f(x):
    x = tf.debugging.check_numerics(x, "bad")  # error: JIT209
    tf.Assert(tf.reduce_all(x > 0), [x])  # error: JIT209
    return x
""",
        # In a helper of a Keras layer at the default `jit_compile="auto"`.
        """
import tensorflow as tf
def accumulate(canvas, patch):
    tf.debugging.assert_equal(tf.reduce_sum(patch) >= 0, True)  # error: JIT209
    return canvas + patch
class Accumulate(tf.keras.layers.Layer):
    def call(self, x):
        return accumulate(x, x)
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        leaf = call_leaf(node)
        if leaf is None or leaf not in DROPPED_CHECK_LEAVES:
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not (context.xla or context.auto_xla):
            return
        names = canonical(self.ctx.names.qualified_names(node.func, path))
        if not names or not all(dropped_check(n) for n in names):
            return
        if all(checks_constants_while_tracing(n) for n in names) and self._python_inputs(
            node, path
        ):
            return  # checked while tracing: it raises then, XLA or not
        api = min(names).replace("tensorflow.", "tf.", 1)
        if context.xla:
            where = f"{graph_site(context)} is compiled with XLA, where"
        else:
            where = f"{graph_site(context)}: {xla_when(graph_site(context))}, and there"
        self.report(
            node,
            f"`{api}` never fires under XLA: {where} the check is compiled as a no-op and "
            "the code goes on with the bad values",
            help="check the inputs before the compiled call, or the result after it",
        )

    def _python_inputs(self, node: cst.Call, path) -> bool:  # type: ignore[no-untyped-def]
        """Every value the check compares (`x`, `y`; not its message or name) is a Python
        value while tracing, by its spelling: a literal, or an identity test (`n is not
        None`) and `and`/`or`/`not` of them."""
        checked = [
            a.value
            for a in node.args
            if not a.star and (a.keyword is None or a.keyword.value in ("x", "y"))
        ]
        return bool(checked) and all(python_valued(v) for v in checked)
