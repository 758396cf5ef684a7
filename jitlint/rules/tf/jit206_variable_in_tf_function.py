from __future__ import annotations

import libcst as cst

from jitlint.rules.base import Rule

_VARIABLE = {"tensorflow.Variable", "tensorflow.compat.v2.Variable"}
# Methods Keras and tf.Module run once, outside the traced step: creating variables is their job.
_SETUP_METHODS = {"__init__", "build", "_build", "setup", "create_variables"}


class VariableInTfFunction(Rule):
    """
    ## What it does
    Finds `tf.Variable(...)` created unconditionally in graph code: a `tf.function` body,
    a helper it calls, or a Keras layer's `call`.

    ## Why is this bad
    A `tf.function` may create variables only on its first trace. A body that creates one
    on every trace fails on the first call:

    ```text
    ValueError: tf.function only supports singleton tf.Variables created on the first call.
    Make sure the tf.Variable is only created once or created outside tf.function.
    ```

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def accumulate(x):
        total = tf.Variable(0.0)  # error: JIT206
        total.assign_add(tf.reduce_sum(x))
        return total.read_value()


    accumulate(tf.constant([1.0, 2.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    total = tf.Variable(0.0)


    @tf.function
    def accumulate(x):
        total.assign_add(tf.reduce_sum(x))
        return total.read_value()


    accumulate(tf.constant([1.0, 2.0]))
    ```

    ## Fix safety
    No automatic fix yet. Create the variable once: at module level, in `__init__`/`build`,
    or lazily behind `if self.v is None:`; moving it changes when its initial value is
    computed.

    ## Known problems
    Creation under any `if` is taken to be the lazy singleton pattern and is not reported.
    """

    code = "JIT206"
    name = "variable-in-tf-function"
    summary = "A tf.Variable is created on every call of a tf.function."
    framework = "tensorflow"
    requires = ("Variable",)
    runtime_error = "tf.function only supports singleton tf.Variables"

    VALID = (
        # Created once, outside.
        """
import tensorflow as tf
v = tf.Variable(1.0)
@tf.function
def f(x):
    return x * v
""",
        # The lazy singleton.
        """
import tensorflow as tf
class M(tf.Module):
    def __init__(self):
        self.v = None
    @tf.function
    def __call__(self, x):
        if self.v is None:
            self.v = tf.Variable(tf.ones_like(x))
        return x * self.v
""",
        # Keras build() creates weights once.
        """
import tensorflow as tf
class L(tf.keras.layers.Layer):
    def build(self, shape):
        self.w = tf.Variable(tf.zeros(shape[-1:]))
    def call(self, x):
        return x * self.w
""",
        # Not graph code.
        """
import tensorflow as tf
def make():
    return tf.Variable(0.0)
""",
    )
    INVALID = (
        """
import tensorflow as tf
@tf.function
def f(x):
    v = tf.Variable(1.0)  # error: JIT206
    return x * v
""",
        """
import tensorflow as tf
from tensorflow import keras
class Scale(keras.layers.Layer):
    def call(self, inputs):
        self.scale = tf.Variable(2.0)  # error: JIT206
        return inputs * self.scale
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if not (
            (kind is cst.Attribute and func.attr.value == "Variable")  # type: ignore[attr-defined]
            or (kind is cst.Name and func.value == "Variable")  # type: ignore[attr-defined]
        ):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        for ancestor in reversed(path):
            ancestor_kind = type(ancestor)
            if ancestor_kind is cst.If or ancestor_kind is cst.IfExp:
                return  # lazy creation
            if ancestor_kind is cst.With and "init_scope" in self.ctx.module.code_for_node(
                ancestor.items[0]  # type: ignore[attr-defined]
            ):
                return
            if ancestor_kind is cst.FunctionDef:
                if ancestor.name.value in _SETUP_METHODS:  # type: ignore[attr-defined]
                    return
                break
        if not self.ctx.names.resolves_to(func, path, _VARIABLE):
            return
        self.report(
            node,
            f"`tf.Variable` is created on every trace of {context.origin}; TensorFlow allows "
            "variables only on the first call (ValueError: tf.function only supports "
            "singleton tf.Variables)",
            help="create it once: at module level, in __init__/build, or behind "
            "`if self.v is None:`",
        )
