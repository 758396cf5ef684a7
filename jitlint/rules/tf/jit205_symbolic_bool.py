from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.fixes.traced.conds import tf_cond_fix_or_reason
from jitlint.fixes.traced.guards import tf_guard_return_fix
from jitlint.model.tf.api import DO_NOT_CONVERT
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.values import TENSOR
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

    A `for` over `tf.range(tf.shape(x)[k])` where autograph is off becomes `for i in
    range(x.shape[k])`: unsafe, it needs the dimension known while tracing (a `None`
    dimension now raises TypeError), the loop is unrolled into the graph, and `i` is a
    Python int rather than an int32 tensor.

    A truth test of a layer's weight (`if self.bias:`, where `build` made `self.bias` with
    `self.add_weight` or left it `None`) is reported too: a Keras 3 weight has no truth value
    even eagerly ("TypeError: A Keras Variable cannot be used as a boolean", observed with
    Keras 3.15 / TF 2.21), and in graph code no variable has one. Test the setting that
    decides whether the weight exists, or `self.bias is not None`.

    ## Known problems
    Only values known to be tensors are checked (TensorFlow op results, arguments with an
    `input_signature`, a Keras `call`'s inputs, attributes the class's own methods assign
    only tensors or `None`). Keras 2 (`tf_keras`) autographs `call`;
    classes derived from it are treated like `tf.function`.
    """

    code = "JIT205"
    name = "symbolic-bool"
    summary = "A symbolic tensor is used as a Python bool where autograph does not convert it."
    framework = "tensorflow"
    fix_availability = "sometimes"
    requires = ("tensorflow", "keras")
    runtime_error = "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"

    VALID = (
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
        tensors is Python's, in any graph."""
        if type(expr) in (cst.List, cst.Tuple):
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

    def _keras_inputs(self, expr: cst.CSTNode, path) -> bool:  # type: ignore[no-untyped-def]
        """`inputs` as a Keras method received it: one tensor, or a list or dict of them
        (a merge layer's `for x in inputs:` iterates a list), so nothing is claimed."""
        if type(expr) is not cst.Name:
            return False
        defs = self.ctx.tf.values.name_defs(expr, path)
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
        found = tf_cond_fix_or_reason(self.ctx, node, path)
        if isinstance(found, NodeFix):
            return found, ""
        guard = tf_guard_return_fix(self.ctx, node, path) if type(node) is cst.If else None
        return (guard, "") if guard is not None else (None, found)

    def visit_If(self, node: cst.If) -> None:
        context = self._tensor_context(node, node.test, True)
        if context is not None:
            self._report(node.test, "`if`", context, *self._cond_fix(node))
            return
        raising = _raise_in_branch(node)
        if raising is None:
            return
        context = self._tensor_context(node, node.test, False)
        if context is not None:
            self.report(
                raising,
                f"this `raise` is in a branch of an `if` on a symbolic tensor in "
                f"{graph_site(context)}: autograph traces both branches of a tensor `if`, so it "
                "raises while tracing, whatever the value",
                help="check the value with tf.debugging.assert_* (or tf.debugging.Assert), "
                "or decide the branch from a Python value",
            )

    def visit_While(self, node: cst.While) -> None:
        context = self._tensor_context(node, node.test, True)
        if context is not None:
            self._report(node.test, "`while`", context)

    def visit_For(self, node: cst.For) -> None:
        context = self._tensor_context(node, node.iter, True)
        if context is not None:
            self._report(node.iter, "`for` (iterating)", context, self._static_range_fix(node))

    def _static_range_fix(self, node: cst.For) -> NodeFix | None:
        """`for i in tf.range(tf.shape(x)[k]):` -> `for i in range(x.shape[k]):`, a Python
        loop over the static size (unrolled into the graph)."""
        call, path = node.iter, self.ctx.path_to(node)
        if type(call) is not cst.Call or len(call.args) != 1 or call.args[0].keyword:
            return None
        if not self.ctx.names.resolves_to(call.func, [*path, call], {"tensorflow.range"}):
            return None
        size = call.args[0].value
        if type(size) is not cst.Subscript or len(size.slice) != 1:
            return None
        index = size.slice[0].slice
        shape = size.value
        if type(index) is not cst.Index or type(index.value) is not cst.Integer:
            return None
        if type(shape) is not cst.Call or len(shape.args) != 1 or shape.args[0].keyword:
            return None
        if not self.ctx.names.resolves_to(shape.func, [*path, shape], {"tensorflow.shape"}):
            return None
        tensor = self.ctx.module.code_for_node(shape.args[0].value)
        if "\n" in tensor:
            return None
        return NodeFix(
            "unsafe",
            "loop over the static size with Python `range` (the dimension must be known)",
            ((call, f"range({tensor}.shape[{index.value.value}])"),),
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
        if type(node.func) is not cst.Name or node.func.value != "bool" or len(node.args) != 1:
            return
        context = self._tensor_context(node, node.args[0].value, False)
        if context is None:
            return
        if self.ctx.names.resolves_to(node.func, self.ctx.path_to(node), {"builtins.bool"}):
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
