from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.branches import Mismatch, branch_mismatches
from jitlint.model.tf.api import DO_NOT_CONVERT, TF_RANGE, TF_SHAPE
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.values import TENSOR
from jitlint.python.builtins_facts import ELEMENT_BUILTINS, TRUTH_TEST, builtin_qualname
from jitlint.rules.base import Rule


class SymbolicBool(Rule):
    """
    ## What it does
    Finds a symbolic tensor used as a Python `bool` where TensorFlow's autograph does not
    rewrite it: `bool(t)` and `assert t` anywhere in graph code, and `if`/`while`/ternary/
    `and`/`or`/`not` on a tensor, and `for` over one, in code autograph does not convert:
    `tf.function(..., autograph=False)`, `tf.autograph.experimental.do_not_convert`, and
    Keras 3 layer `call`, model `train_step`/`test_step`/`predict_step`, `Loss.call` and
    `Metric.update_state` methods (and the helpers they call, in any module), which Keras
    runs without autograph.

    Where autograph does convert a tensor `if`, a `raise` written in its body or `else`:
    autograph traces both branches into a `tf.cond`, so the `raise` runs while tracing and
    the function always fails, whatever the value (observed, TF 2.21: `if loss > 100.0:
    raise ValueError(...)` raises for a loss of 1.0).

    And branches of such an `if` that leave different outputs: autograph makes the `if` a
    `tf.cond`, which needs the same outputs from both. Reported: a name live after the `if`
    that one branch binds and nothing binds before it ("'y' must also be initialized in the
    else branch"), `None` in one branch and a value in the other, or a value in one branch
    where the other keeps the `None` bound before the `if` ("'y' is None at the end of the
    else branch"), lists, tuples or dicts of other lengths or keys ("'y' must have
    the same nested structure in the main and else branches"), and, for an `if` in the
    function's body, a `return` in one branch where the other falls off the end ("the else
    branch must also have a return statement") or returns another structure (errors
    observed, TF 2.21).

    A tensor iterated by Python in any graph code, with autograph or without: unpacked (`batch,
    length = tf.shape(x)`, `h, w = tf.shape(images)[1:3]`), spread (`f(*t)`), the source of
    a comprehension, or given to `enumerate`/`zip`/`list`/`tuple`. Autograph converts only a
    plain `for row in t:`; the rest fails while tracing even when the shape is fully known
    (observed, TF 2.21: `a, b = t` for `t` of static shape (2, 3)). Only values known to be
    one tensor are checked (`tf.split`, `tf.unstack`, `tf.nn.moments` return lists and
    tuples, which Python unpacks).

    ## Why is this bad
    A graph tensor has no value while the function is traced, so Python cannot branch on
    it, nor iterate over it with a Python `for`:

    ```text
    OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not
    allowed.
    OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed.
    ```

    Inside an ordinary `tf.function`, autograph turns `if tensor:` into `tf.cond` and
    `while tensor:` into `tf.while_loop`, so those are fine there and are not reported.
    Keras 3 (`tf.keras` since TensorFlow 2.16) does not autograph `call` or `train_step`:
    `if tf.reduce_sum(x) > 0:` in a layer fails (observed with Keras 3.15 / TF 2.21).

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def safe_log(x):
        assert tf.reduce_min(x) > 0  # error: JIT205
        return tf.math.log(x)


    safe_log(tf.constant([1.0, 2.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function
    def safe_log(x):
        tf.debugging.Assert(tf.reduce_min(x) > 0, ["x must be positive"])
        return tf.math.log(x)


    safe_log(tf.constant([1.0, 2.0]))
    ```

    The same holds for `if tf.reduce_sum(x) > 0:` in a Keras 3 layer's `call` or under
    `autograph=False`: use `tf.cond(pred, true_fn, false_fn)` or `tf.where` there.

    ## Fix safety
    `assert cond, msg` on a tensor is rewritten to `tf.debugging.Assert(cond, [msg])` as an
    unsafe fix: the check then runs in the graph on every call, and it raises
    `InvalidArgumentError` rather than `AssertionError`. (`tf.debugging.assert_greater(x, 0)`
    is not used: unlike the `>` operator, it does not adapt the Python `0` to `x`'s dtype.)
    A `raise` in a branch of an autographed tensor `if` (`if c: raise E("msg")`, no `else`,
    the `raise` alone in the body, `c` without `and`/`or`) becomes
    `tf.debugging.Assert(tf.logical_not(c), ["msg"])` the same way: unsafe, it raises
    `InvalidArgumentError` when `c` holds, where the `raise` meant `E`.
    No fix is offered under XLA, where TensorFlow's asserts are silently dropped (JIT209).

    An `if` choosing one value (`if c: return A` / `else: return B`, `if c: return A` then
    `return B`, `if c: y = A` with or without `else: y = B`) and a conditional expression
    become `tf.cond(c, lambda: A, lambda: B)`: unsafe, because both branches are traced into
    the graph (a Python side effect in either runs), and they must return tensors of one
    dtype and structure. A branch that is not a tensor (`None`, a string), a condition using
    `and`/`or`/`not`, or a branch with a visible Python side effect gets no fix; the help
    says why. An early `if c: return A` in a function's body followed by plain assignments
    (one line each, to names, no Python side effect, none read by `c` or `A`) and a final
    `return B` gets the same rewrite, the assignments moved above it: they now also run
    when `A` is chosen (a division by zero there gives `nan`/`inf` in the branch not taken).

    Where no such rewrite applies and the function holding the test is decorated with
    `tf.autograph.experimental.do_not_convert`, the fix removes that decorator (its line is
    left blank): a `tf.function` calling the function then converts its `if`/`while`/`for`
    on tensors to `tf.cond`/`tf.while_loop`. Unsafe: autograph now converts all of the
    function's control flow (both branches of a converted `if` are traced, and they must
    return tensors of one structure), also where other code relied on it staying Python.

    `a, b = t` becomes `a, b = tf.unstack(t, num=2)` (unsafe): the parts along the first
    axis, as Python's unpacking of an eager tensor gives them; a first dimension of another
    size now fails when the graph runs rather than while tracing.

    A `for` over `tf.range(tf.shape(x)[k])` where autograph is off, and a comprehension
    over it anywhere, becomes `for i in range(x.shape[k])` (as `tf.range(x.shape[k])`
    becomes `range(x.shape[k])`): unsafe, it needs the dimension known while tracing (a `None`
    dimension now raises TypeError), the loop is unrolled into the graph, and `i` is a
    Python int rather than an int32 tensor.

    A truth test of a layer's weight (`if self.bias:`, where `build` made `self.bias` with
    `self.add_weight` or left it `None`) is reported too: a Keras 3 weight has no truth value
    even eagerly ("TypeError: A Keras Variable cannot be used as a boolean", observed with
    Keras 3.15 / TF 2.21), and in graph code no variable has one. Test the setting that
    decides whether the weight exists, or `self.bias is not None`.

    ## Known problems
    Branch outputs are compared by their syntax only: a name bound by a plain assignment
    directly in a branch, `None`, and list/tuple/dict displays; dtypes and shapes that
    differ (`tf.cast(x, tf.int32)` against `x`) are not compared.

    Only values known to be tensors are checked (TensorFlow op results, arguments with an
    `input_signature`, a Keras `call`'s inputs, attributes the class's own methods assign
    only tensors or `None`); for a truth test or a loop, not a `call`'s whole input nor a
    part unpacked from it, which may be a list or dict. Keras 2 (`tf_keras`) autographs
    `call`; classes derived from it are treated like `tf.function`, and so are
    `keras`/`tf.keras` classes in a project that leaves the Keras major undecided (README,
    "Framework versions"): a Python `if` on a tensor in their `call` is reported only where
    Keras 3 is the target.
    """

    code = "JIT205"
    name = "symbolic-bool"
    summary = "A symbolic tensor is used as a Python bool where autograph does not convert it."
    framework = "tensorflow"
    fix_availability = "sometimes"
    requires = ("tensorflow", "keras")
    runtime_error = "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"

    VALID = (
        # A part unpacked from a Keras layer's whole input may be a structure itself: here
        # the context features, a dict, `{}` when none is configured (TF-GNN's next-state
        # layers), whose truth is Python's.
        """
import keras
class NextState(keras.layers.Layer):
    def call(self, inputs):
        node_state, edge_inputs, context_state = inputs
        if context_state:
            raise ValueError("context input is not supported")
        assert not context_state, "expected no context"
        return node_state + sum(edge_inputs.values())
""",
        # Made a tuple on every path (`if not isinstance(x, tuple): x = (x,)`), then tested
        # for emptiness: Python's truth of a tuple (keras-hub's packers).
        """
import keras
class Packer(keras.layers.Layer):
    def _sanitize(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        if not inputs:
            raise ValueError("need an input")
        return inputs
    def call(self, inputs):
        return self._sanitize(inputs)[0]
""",
        # Under an `isinstance` test for a list or tuple the value is a Python container:
        # its truth and its unpacking are Python's, even when the model read it as a tensor.
        """
import keras
import tensorflow as tf
class Canonical(keras.layers.Layer):
    def call(self, inputs):
        def flat(values):
            if isinstance(values, (tuple, list)):
                if not values:
                    return []
                first = values[0]
                if isinstance(first, (tuple, list)) and not first:
                    return []
            return values
        return flat(inputs)
@tf.function
def step(images, mask):
    logits = tf.boolean_mask(images, mask)
    if isinstance(logits, (list, tuple)):
        logits, _ = logits
    return logits
""",
        # `input_signature=[]` binds no spec: a parameter after it keeps its Python default,
        # so the test is Python's (tensorflow/decision-forests' yggdrasil_model_path_tensor).
        """
import tensorflow as tf
class Holder(tf.Module):
    def __init__(self, models):
        self._models = models
    @tf.function(input_signature=[])
    def path(self, index=0):
        if index >= len(self._models):
            raise ValueError("no such model")
        return tf.constant("p")
""",
        # A model built with `dynamic=True` (Keras 2 runs it eagerly, `fit` included; Keras
        # 3 refuses the argument): its `call` branches on tensors with values.
        """
import tensorflow as tf
class RecursiveCell(tf.keras.Model):
    def __init__(self):
        super(RecursiveCell, self).__init__(dynamic=True)
        self.dense = tf.keras.layers.Dense(4)
    def call(self, x):
        while tf.reduce_sum(x) > 1.0:
            x = self.dense(x) * 0.5
        return x
""",
        # A layer made and called only in the module's own self-test, a driver that takes
        # nothing and returns nothing: `call` runs eagerly on the test's tensors.
        """
import tensorflow as tf
class GeneralizedMeanPool(tf.keras.layers.Layer):
    def call(self, x):
        batch, height, width, channels = tf.shape(x)
        return tf.nn.avg_pool2d(x, ksize=(1, height, width, 1), strides=1, padding="VALID")
def _check_pool():
    images = tf.random.uniform((4, 5, 5, 2))
    pool = GeneralizedMeanPool()
    assert pool(images).shape == (4, 1, 1, 2)
    pool = GeneralizedMeanPool()
    assert pool(images[:, :3]).shape == (4, 1, 1, 2)
if __name__ == "__main__":
    _check_pool()
""",
        # Outputs bound before the `if` or in both branches alike, names not read after,
        # returns on every path, and an `if` on a Python value.
        """
import tensorflow as tf
@tf.function
def pick(x, mode="a"):
    y = x
    if tf.reduce_sum(x) > 0:
        y = x * 2.0
        tmp = y + 1.0
    if tf.reduce_max(x) > 1.0:
        z = x
    else:
        z = -x
    if mode == "a":
        w = None
    else:
        w = [x, x]
    best = None
    if tf.reduce_min(x) > 0.0:
        best = x
    else:
        best = -x
    if tf.reduce_min(x) > 0.0:
        w = y
    else:
        return y + z + best
    return w - z
""",
        # Unpacking lists and tuples of tensors, static shapes, and a converted `for`.
        """
import tensorflow as tf
@tf.function
def f(x):
    a, b = tf.split(x, 2)
    mean, var = tf.nn.moments(x, axes=[0])
    rows, cols = x.shape
    first, second = tf.unstack(tf.shape(x))
    pair = [a, b]
    c, d = pair
    total = tf.zeros_like(a)
    for row in tf.reshape(x, [-1, 2]):
        total += row
    return total + mean + var + c + d + sum(t for t in [a, b])
""",
        # A Python list of tensors made by tf.unstack / tf.split, looped over in a Keras 3
        # layer's `call` (no autograph): Python iterates a list (edward2's per-unit loop).
        """
import keras
import tensorflow as tf
class PerUnit(keras.layers.Layer):
    def call(self, x):
        outs = []
        for column in tf.unstack(x, axis=-1):
            outs.append(column * 2.0)
        halves = tf.split(x, 2, axis=-1)
        for half in halves:
            outs.append(tf.reduce_sum(half, axis=-1))
        return tf.stack(outs, axis=-1)
""",
        # The same list under a name a loop rebinds: each pass makes it a list again
        # (tf.unstack) before the inner loop reads it, so the tensor of the pass before
        # (tf.stack, after the read) never reaches that read.
        """
import keras
import tensorflow as tf
class Stacked(keras.layers.Layer):
    def call(self, x):
        steps = tf.transpose(x, [1, 0, 2])
        for scale in (1.0, 2.0):
            outputs = []
            steps = tf.unstack(steps, axis=0)
            for step in steps:
                outputs.append(step * scale)
            steps = tf.stack(outputs, axis=0)
        return steps
""",
        # An argument whose signature is a structure of tensors unpacks fine.
        """
import collections
import tensorflow as tf
Pair = collections.namedtuple("Pair", "a b")
@tf.function(input_signature=[(tf.TensorSpec([None]), tf.TensorSpec([None]))])
def add(data):
    pair = Pair(*data)
    first, second = data
    return pair.a + second + first
""",
        # Eager code may unpack a tensor.
        """
import tensorflow as tf
def f(x):
    batch, length = tf.shape(x)
    return tf.zeros([batch, length])
""",
        # A raise decided by Python values or static shapes: it runs only when it should.
        """
import tensorflow as tf
@tf.function
def f(x, strict=True):
    if strict and x.shape[0] > 3:
        raise ValueError("too long")
    if tf.reduce_sum(x) > 0:
        x = x * 2.0
    return x
""",
        # Autograph converts `if tensor:` inside tf.function.
        """
import tensorflow as tf
@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:
        x = x * 2
    while tf.reduce_max(x) > 10:
        x = x / 2
    return x if x[0] > 0 else -x
""",
        # Python values and static shapes, even without autograph.
        """
import tensorflow as tf
@tf.function(autograph=False)
def f(x, training=False):
    if training and x.shape[0] > 1 and x is not None:
        return x
    return -x
""",
        # TF's internal helpers return Python values (TF's own checkpoint code does this).
        """
import tensorflow as tf
from tensorflow.python.eager import context
from tensorflow.python.framework import tensor_util
@tf.function(autograph=False)
def f(x):
    if context.executing_eagerly() and tensor_util.is_tf_type(x):
        return x
    return -x
""",
        # Eager code may branch on tensors.
        """
import tensorflow as tf
def f(x):
    if tf.reduce_sum(x) > 0:
        return x
    assert x[0] > 0
    return -x
""",
        # A `call` input annotated as a tuple whose parts are containers: unpacked, a dict
        # or list of tensors is tested by Python truthiness, under any Keras.
        """
from typing import Dict, Tuple
import keras
import tensorflow as tf
class Flatten(keras.layers.Layer):
    def call(self, inputs: Tuple[Dict[str, tf.Tensor], Dict[str, tf.Tensor], tf.Tensor]):
        context, examples, mask = inputs
        if not examples:
            raise ValueError("no example features")
        return {**context, **examples}, mask
class Pairs(keras.layers.Layer):
    def call(self, inputs: tuple[list[tf.Tensor], ...]):
        first, second = inputs
        return second if first else first
""",
        # A check that runs only eagerly: graph code makes `tf.executing_eagerly()` False,
        # so `and` stops there and the body is never traced.
        """
import keras
import tensorflow as tf
class Check(keras.layers.Layer):
    def call(self, x, mask=None):
        if mask is not None and tf.executing_eagerly():
            if not tf.reduce_all(mask[:, 0]):
                raise NotImplementedError("left padding")
        return x
""",
        # Keras 2 autographs call.
        """
import tensorflow as tf
import tf_keras
class L(tf_keras.layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            return x
        return -x
""",
    )
    INVALID = (
        # One spec: the leading parameter after `self` is a tensor, the next keeps its default.
        """
import tensorflow as tf
class Holder(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def pick(self, index, strict=True):
        if strict and index >= 3:
            raise ValueError("too big")  # error: JIT205
        return index
""",
        # The same layer made in a helper that takes its input and returns its output: the
        # helper may build a functional model on symbolic inputs, so `call` stays graph code.
        """
import tensorflow as tf
class GeneralizedMeanPool(tf.keras.layers.Layer):
    def call(self, x):
        batch, height, width, channels = tf.shape(x)  # error: JIT205
        return tf.nn.avg_pool2d(x, ksize=(1, height, width, 1), strides=1, padding="VALID")
def pooled(features):
    pool = GeneralizedMeanPool()
    return pool(features)
""",
        # A body that runs only in graph code, and the `else` of an `and` whose eager test
        # may hold while another part fails: both can run in a Keras 3 `call`.
        """
import keras
import tensorflow as tf
class Strict(keras.layers.Layer):
    def call(self, x, strict=False):
        if strict and not tf.executing_eagerly():
            if tf.reduce_sum(x) > 0:  # error: JIT205
                return x
        if tf.inside_function() and strict:
            return -x
        else:
            if tf.reduce_max(x) > 0:  # error: JIT205
                return x
        return x
""",
        # The tensor part of a `call` input annotated as a tuple is still a tensor.
        """
from typing import Dict, Tuple
import keras
import tensorflow as tf
class Gate(keras.layers.Layer):
    def call(self, inputs: Tuple[Dict[str, tf.Tensor], tf.Tensor]):
        features, mask = inputs
        if tf.reduce_sum(mask) > 0:  # error: JIT205
            return features
        return {}
""",
        # The branches of an autographed tensor `if` leave different outputs.
        """
import tensorflow as tf
@tf.function
def pick(x):
    if tf.reduce_sum(x) > 0:
        scaled = x * 2.0  # error: JIT205
    if tf.reduce_max(x) > 1.0:
        mask = None  # error: JIT205
    else:
        mask = tf.ones_like(x)
    if tf.reduce_min(x) > 0.0:
        parts = [x, x]  # error: JIT205
    else:
        parts = [x]
    return scaled, mask, parts
""",
        # The else branch keeps the `None` bound before the `if`.
        """
import tensorflow as tf
@tf.function
def best_row(x, rows=(0, 1)):
    best = None
    for row in rows:
        if tf.reduce_sum(x[row]) > 0:
            best = x[row]  # error: JIT205
    return best
""",
        """
import tensorflow as tf
@tf.function
def clipped(x):
    total = tf.reduce_sum(x)
    if total > 10.0:
        return x / total  # error: JIT205
""",
        # A tensor unpacked or iterated by Python: fails with autograph too.
        """
import tensorflow as tf
@tf.function
def pad_to(x):
    batch, length = tf.shape(x)  # error: JIT205
    parts = [row * 2.0 for row in tf.reshape(x, [-1, 2])]  # error: JIT205
    for i, row in enumerate(tf.abs(x)):  # error: JIT205
        parts.append(row)
    return tf.zeros([batch, length])
""",
        """
import tensorflow as tf
class Crop(tf.keras.layers.Layer):
    def call(self, images):
        h, w = tf.shape(images)[1:3]  # error: JIT205
        return images[:, : h // 2, : w // 2]
""",
        # A raise in a branch of an autographed tensor `if`: traced, so it always raises.
        """
import tensorflow as tf
@tf.function
def checked(x):
    loss = tf.reduce_mean(x)
    if loss > 100.0:
        raise ValueError("diverged")  # error: JIT205
    return loss
""",
        """
import tensorflow as tf
@tf.function
def f(x):
    assert tf.reduce_min(x) > 0  # error: JIT205
    return bool(tf.reduce_sum(x) > 1)  # error: JIT205
""",
        """
import tensorflow as tf
@tf.autograph.experimental.do_not_convert
def body(x):
    while tf.reduce_max(x) > 1.0:  # error: JIT205
        x = x / 2
    return x
g = tf.function(body)
""",
        # A Python loop over a tensor in a Keras loss (no autograph).
        """
import tensorflow as tf
class PerOutput(tf.keras.losses.Loss):
    def call(self, y_true, y_pred):
        total = 0.0
        for i in tf.range(tf.shape(y_true)[1]):  # error: JIT205
            total += tf.reduce_mean(tf.square(y_true[:, i] - y_pred[:, i]))
        return total
""",
        # Keras 3 runs call without autograph.
        """
import tensorflow as tf
class Gate(tf.keras.layers.Layer):
    def call(self, inputs):
        if tf.reduce_mean(inputs) > 0.5:  # error: JIT205
            return inputs
        return tf.zeros_like(inputs)
""",
        """
import tensorflow as tf
def helper(x):
    return x if not tf.reduce_any(x > 0) else -x  # error: JIT205
f = tf.function(helper, autograph=False)
""",
        # A weight the layer may not have, tested for its truth value.
        """
import keras
class Dense(keras.layers.Layer):
    def __init__(self, units, use_bias=True):
        super().__init__()
        self.units, self.use_bias = units, use_bias
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units))
        self.bias = self.add_weight(shape=(self.units,)) if self.use_bias else None
    def call(self, x):
        y = x @ self.kernel
        if self.bias:  # error: JIT205
            y = y + self.bias
        return y
""",
    )

    def _tensor_context(self, node: cst.CSTNode, expr: cst.CSTNode, needs_no_autograph: bool):
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or (needs_no_autograph and context.autograph):
            return None
        if self.ctx.tf.values.value(expr, path).kind != TENSOR:
            return None
        if self._keras_inputs(expr, path) or self._python_container(expr, path):
            return None
        return context

    def _python_container(self, expr: cst.CSTNode, path) -> bool:  # type: ignore[no-untyped-def]
        """A list or tuple display, or a local name that every binding reaching here makes
        one (`if not isinstance(x, list): x = [x]`): iterating or testing a Python list of
        tensors is Python's, in any graph. `not x` tests the truth of `x`."""
        while type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
            expr = expr.expression  # type: ignore[attr-defined]
        if type(expr) in (cst.List, cst.Tuple) or self.ctx.tf.values.tensor_list(expr, path):
            return True
        if type(expr) is not cst.Name:
            return False
        defs = self.ctx.tf.values.name_defs(expr, path)
        return bool(defs) and all(
            d.kind == "assign"
            and type(d.node) in (cst.List, cst.Tuple)
            and type(d.path[-1]) is cst.Assign
            and all(type(t.target) is cst.Name for t in d.path[-1].targets)
            for d in defs
        )

    def _keras_inputs(self, expr: cst.CSTNode, path, depth: int = 0) -> bool:  # type: ignore[no-untyped-def]
        """`inputs` as a Keras method received it: one tensor, or a list or dict of them
        (a merge layer's `for x in inputs:` iterates a list), so nothing is claimed; nor of
        a part unpacked from it (`state, edges, context = inputs`), which may be a structure
        in turn (TF-GNN passes a dict of context features there, `{}` when there is none)."""
        while type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
            expr = expr.expression  # type: ignore[attr-defined]
        if type(expr) is not cst.Name:
            return False
        defs = self.ctx.tf.values.name_defs(expr, path)
        if defs and depth == 0 and all(d.kind == "elem" for d in defs):
            return all(self._keras_inputs(d.node, d.path, depth + 1) for d in defs)
        if not defs or any(d.kind != "param" for d in defs):
            return False
        return self.ctx.tf.keras_class_of(defs[0].path[-1]) is not None

    def _report(
        self, node: cst.CSTNode, what: str, context, fix: NodeFix | None = None, no_fix: str = ""
    ) -> None:
        why = "autograph does not convert it" if not context.autograph else "it is traced"
        weight = self._weight(node)
        if weight is not None:
            self.report(
                node,
                f"{what} on `self.{weight}`, a variable, in {graph_site(context)}: a variable has "
                "no truth value in graph code (OperatorNotAllowedInGraphError), and a Keras 3 "
                "weight has none even eagerly (TypeError 'A Keras Variable cannot be used as "
                "a boolean')",
                help=f"test the setting that decides whether it exists (`self.use_bias`, ...), "
                f"or `self.{weight} is not None`",
            )
            return
        if fix is None and not context.autograph:
            converted = self._convert_fix(node)
            if converted is not None:
                fix, no_fix = converted, ""
        self.report(
            node,
            f"{what} on a symbolic tensor in {graph_site(context)}, where {why}: "
            "OperatorNotAllowedInGraphError",
            help="use tf.cond / tf.where / tf.while_loop, or tf.debugging.assert_* for checks"
            + (f"; no automatic fix: {no_fix}" if no_fix else ""),
            fix=fix,
        )

    def _convert_fix(self, node: cst.CSTNode) -> NodeFix | None:
        """Drop `@tf.autograph.experimental.do_not_convert` from the function holding `node`,
        when that decorator is what keeps autograph away (a tf.function calling it converts
        it then)."""
        path = self.ctx.path_to(node)
        depth = next(
            (k for k in range(len(path) - 1, -1, -1) if type(path[k]) is cst.FunctionDef), None
        )
        if depth is None:
            return None
        func = path[depth]
        marked = [
            d
            for d in func.decorators  # type: ignore[attr-defined]
            if self.ctx.names.resolves_to(d.decorator, [*path[: depth + 1], d], DO_NOT_CONVERT)
        ]
        if len(marked) != 1:
            return None
        return NodeFix(
            "unsafe",
            "remove `do_not_convert`, so autograph turns the Python control flow on tensors "
            "into graph ops",
            ((marked[0], ""),),
        )

    def _weight(self, node: cst.CSTNode) -> str | None:
        """The attribute, when `node` is `self.<attr>` (or `not self.<attr>`) holding a
        variable the layer made."""
        if type(node) is cst.UnaryOperation:
            node = node.expression
        if not (
            type(node) is cst.Attribute
            and type(node.value) is cst.Name
            and node.value.value == "self"
        ):
            return None
        value = self.ctx.tf.values.value(node, self.ctx.path_to(node))
        return node.attr.value if "variable" in value.origins else None

    def _cond_fix(self, node: cst.If | cst.IfExp) -> tuple[NodeFix | None, str]:
        path = self.ctx.path_to(node)
        from jitlint.fixes.traced.conds import tf_cond_fix_or_reason

        found = tf_cond_fix_or_reason(self.ctx, node, path)
        if isinstance(found, NodeFix):
            return found, ""
        from jitlint.fixes.traced.guards import tf_guard_return_fix

        guard = tf_guard_return_fix(self.ctx, node, path) if type(node) is cst.If else None
        return (guard, "") if guard is not None else (None, found)

    def visit_If(self, node: cst.If) -> None:
        context = self._tensor_context(node, node.test, True)
        if context is not None:
            self._report(node.test, "`if`", context, *self._cond_fix(node))
            return
        context = self._tensor_context(node, node.test, False)
        if context is None:
            return
        raising = _raise_in_branch(node)
        if raising is not None:
            self.report(
                raising,
                f"this `raise` is in a branch of an `if` on a symbolic tensor in "
                f"{graph_site(context)}: autograph traces both branches of a tensor `if`, so it "
                "raises while tracing, whatever the value",
                help="check the value with tf.debugging.assert_* (or tf.debugging.Assert), "
                "or decide the branch from a Python value",
                fix=None if context.xla else self._raise_fix(node),
            )
        path = self.ctx.path_to(node)
        func = next((n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda)), None)
        if type(func) is cst.FunctionDef:
            for mismatch in branch_mismatches(node, func):
                self._report_mismatch(mismatch, context)

    def _report_mismatch(self, mismatch: Mismatch, context) -> None:  # type: ignore[no-untyped-def]
        what = f"`{mismatch.name}`" if mismatch.name else "the return value"
        error = _MISMATCH_ERRORS[mismatch.kind].format(name=mismatch.name or "retval_")
        self.report(
            mismatch.node,
            f"{what} differs between the branches of an `if` on a symbolic tensor in "
            f"{graph_site(context)}: autograph makes it a tf.cond, which traces both branches "
            f"and needs the same outputs from each ({error})",
            help=_MISMATCH_HELP[mismatch.kind],
        )

    def _raise_fix(self, node: cst.If) -> NodeFix | None:
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        from jitlint.fixes.traced.checks import tf_raise_check_fix

        return tf_raise_check_fix(self.ctx.module, node, spelled, (imports,) if imports else ())

    def visit_While(self, node: cst.While) -> None:
        context = self._tensor_context(node, node.test, True)
        if context is not None:
            self._report(node.test, "`while`", context)

    def visit_For(self, node: cst.For) -> None:
        context = self._tensor_context(node, node.iter, True)
        if context is not None:
            self._report(node.iter, "`for` (iterating)", context, self._static_range_fix(node))

    def _static_range_fix(self, node: cst.For | cst.CompFor) -> NodeFix | None:
        """`for i in tf.range(tf.shape(x)[k]):` -> `for i in range(x.shape[k]):`, a Python
        loop over the static size (unrolled into the graph); `tf.range(x.shape[k])` ->
        `range(x.shape[k])` alike."""
        call, path = node.iter, self.ctx.path_to(node)
        if type(call) is not cst.Call or len(call.args) != 1 or call.args[0].keyword:
            return None
        if not self.ctx.names.resolves_to(call.func, [*path, call], TF_RANGE):
            return None
        size = call.args[0].value
        if type(size) is not cst.Subscript or len(size.slice) != 1:
            return None
        index = size.slice[0].slice
        shape = size.value
        if type(index) is not cst.Index or type(index.value) is not cst.Integer:
            return None
        if type(shape) is cst.Attribute and shape.attr.value == "shape":
            static = self.ctx.module.code_for_node(size)
            return NodeFix(
                "unsafe",
                "loop over the static size with Python `range` (the dimension must be known)",
                ((call, f"range({static})"),),
            )
        if type(shape) is not cst.Call or len(shape.args) != 1 or shape.args[0].keyword:
            return None
        if not self.ctx.names.resolves_to(shape.func, [*path, shape], TF_SHAPE):
            return None
        tensor = self.ctx.module.code_for_node(shape.args[0].value)
        if "\n" in tensor:
            return None
        return NodeFix(
            "unsafe",
            "loop over the static size with Python `range` (the dimension must be known)",
            ((call, f"range({tensor}.shape[{index.value.value}])"),),
        )

    # ----- a tensor iterated by Python (any graph code: autograph converts only `for`) -----

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = [t.target for t in node.targets if type(t.target) in (cst.Tuple, cst.List)]
        if targets:
            self._iterated(node.value, "unpacking", self._unstack_fix(node, targets[0]))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._iterated(node.iter, "a comprehension over", self._static_range_fix(node))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.star == "*":
            self._iterated(node.value, "`*` (spreading)")

    def _iterated(self, expr: cst.BaseExpression, what: str, fix: NodeFix | None = None) -> None:
        context = self._tensor_context(expr, expr, False)
        if context is None or not self.ctx.tf.values.one_tensor(expr, self.ctx.path_to(expr)):
            return
        self.report(
            expr,
            f"{what} a symbolic tensor in {graph_site(context)}: a graph tensor cannot be "
            "iterated by Python, with or without autograph (OperatorNotAllowedInGraphError: "
            "Iterating over a symbolic `tf.Tensor` is not allowed)",
            help="take the parts with tf.unstack(t, num=N) or by index (t[0], t[1]); loop "
            "with `for row in t:` (autograph converts a plain `for`) or tf.map_fn",
            fix=fix,
        )

    def _unstack_fix(self, node: cst.Assign, target: cst.Tuple | cst.List) -> NodeFix | None:
        """`a, b = t` -> `a, b = tf.unstack(t, num=2)`: the parts along the first axis, as
        Python's unpacking of an eager tensor gives them."""
        if len(node.targets) != 1 or any(type(e) is cst.StarredElement for e in target.elements):
            return None
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        value = self.ctx.module.code_for_node(node.value)
        return NodeFix(
            "unsafe",
            "take the parts with `tf.unstack(..., num=N)`",
            ((node.value, f"{spelled}.unstack({value}, num={len(target.elements)})"),),
            (imports,) if imports else (),
        )

    def visit_IfExp(self, node: cst.IfExp) -> None:
        context = self._tensor_context(node, node.test, True)
        if context is not None:
            self._report(node.test, "a conditional expression", context, *self._cond_fix(node))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if type(node.operator) is cst.Not:
            context = self._tensor_context(node, node.expression, True)
            if context is not None:
                self._report(node, "`not`", context)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        context = self._tensor_context(node, node.left, True)
        if context is not None:
            self._report(node.left, "`and`/`or`", context)

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is not cst.Name or len(node.args) < 1:
            return
        if builtin_qualname(node.func.value) in ELEMENT_BUILTINS:  # a text gate before resolving
            found = self.ctx.names.qualified_names(node.func, self.ctx.path_to(node))
            if found and found <= ELEMENT_BUILTINS:
                for arg in node.args:
                    if not arg.keyword and not arg.star:
                        self._iterated(arg.value, f"`{node.func.value}()` of")
            return
        if node.func.value != "bool" or len(node.args) != 1:
            return
        context = self._tensor_context(node, node.args[0].value, False)
        if context is None:
            return
        if self.ctx.names.resolves_to(node.func, self.ctx.path_to(node), TRUTH_TEST):
            self._report(node, "`bool()`", context)

    def visit_Assert(self, node: cst.Assert) -> None:
        context = self._tensor_context(node, node.test, False)
        if context is None:
            return
        self._report(node, "`assert`", context, None if context.xla else self._assert_fix(node))

    def _assert_fix(self, node: cst.Assert) -> NodeFix:
        # tf.debugging.Assert keeps the condition as written: the operator still adapts
        # Python literals to the tensor's dtype, which assert_greater(x, 0) does not
        # (int32 vs float32 TypeError, observed).
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        code = self.ctx.module.code_for_node
        test = code(node.test)
        message = code(node.msg) if node.msg is not None else repr(f"assertion failed: {test}")
        return NodeFix(
            "unsafe",
            "Replace `assert` with `tf.debugging.Assert`",
            ((node, f"{spelled}.debugging.Assert({test}, [{message}])"),),
            (imports,) if imports else (),
        )


# The errors autograph raises (observed, TF 2.21), and what to do about each.
_MISMATCH_ERRORS = {
    "unbound": "ValueError: '{name}' must also be initialized in the else branch",
    "none": "ValueError: '{name}' is None at the end of the else (or main) branch; a "
    "TypeError where the other value is no tensor either",
    "structure": "TypeError: '{name}' must have the same nested structure in the main and "
    "else branches",
    "no-return": "ValueError: the else branch must also have a return statement",
}
_MISMATCH_HELP = {
    "unbound": "give the name a value before the `if` (or in both branches)",
    "none": "give both branches a tensor of one dtype and shape (a zero or a default), not `None`",
    "structure": "build the same structure in both branches (the same length, the same keys)",
    "no-return": "return a value on every path, or decide the branch from a Python value",
}


def _raise_in_branch(node: cst.If) -> cst.Raise | None:
    """The first `raise` written directly in the body or the `else` of `node` (an `elif`
    has its own test, and is an `If` of its own)."""
    blocks = [node.body]
    if type(node.orelse) is cst.Else:
        blocks.append(node.orelse.body)
    for block in blocks:
        for statement in getattr(block, "body", ()):
            if type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) is cst.Raise:
                        return small
    return None
