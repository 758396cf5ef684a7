"""TF values per program point and static shapes per call site (issue 28): which bindings of
a local reach a read (python/reaching.py), dtypes that survive a reassignment, and `tf.cond`
branches whose static shapes differ."""

from __future__ import annotations

import textwrap

import libcst as cst
from helpers import found

from jitlint.python.reaching import reaching
from jitlint.python.walker import iter_children


def _reads_and_bindings(source: str, name: str):  # type: ignore[no-untyped-def]
    """The function `f` of `source`, the paths of its bindings of `name` (its parameters,
    then assignments in source order) and the path of the read of `name` in `use(...)`."""
    module = cst.parse_module(textwrap.dedent(source))
    bindings: list[tuple[cst.CSTNode, ...]] = []
    read: tuple[cst.CSTNode, ...] | None = None
    func = None
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(module, ())]
    order: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = []
    while stack:
        node, path = stack.pop()
        here = (*path, node)
        order.append((node, here))
        stack.extend((child, here) for child in reversed(iter_children(node)))
    for node, here in order:
        if type(node) is cst.FunctionDef and node.name.value == "f":
            func = node
            bindings.append(here)
        elif type(node) is cst.Assign and any(
            type(t.target) is cst.Name and t.target.value == name for t in node.targets
        ):
            bindings.append(here)
        elif (
            type(node) is cst.Call
            and type(node.func) is cst.Name
            and node.func.value == "use"
            and type(node.args[0].value) is cst.Name
        ):
            read = (*here, node.args[0], node.args[0].value)
    assert func is not None and read is not None
    return func, bindings, read


def test_the_last_assignment_in_straight_line_code_is_the_only_one_that_reaches():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            y = cast(y)
            y = clip(y)
            use(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [2]


def test_an_assignment_reads_the_binding_before_it():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            y = 1
            y = use(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [1]


def test_assignments_in_both_branches_of_an_if_both_reach():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            if c:
                y = a
            else:
                y = b
            use(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [1, 2]


def test_an_assignment_in_one_branch_keeps_the_one_before_it():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            y = a
            if c:
                y = b
            use(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [1, 2]


def test_an_assignment_in_the_other_branch_does_not_reach():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            if c:
                y = b
            else:
                use(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [0]


def test_a_with_body_runs_every_time():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            with scope():
                y = b
            use(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [1]


def test_a_loop_that_rebinds_the_name_gives_no_answer():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            for i in range(3):
                use(y)
                y = b
        """,
        "y",
    )
    assert reaching(bindings, read, func) is None


def test_a_read_in_a_nested_function_gives_no_answer():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            y = a
            def g():
                return use(y)
            y = b
        """,
        "y",
    )
    assert reaching(bindings, read, func) is None


# ----- the TF model --------------------------------------------------------------------------


def test_a_cast_reassignment_keeps_its_dtype():
    source = """
    import tensorflow as tf
    @tf.function
    def f(y):
        y = tf.cast(y, tf.float64)
        c = tf.constant([0.5, 1.5])
        return y * c
    """
    assert found(source, {"JIT201"}) == {(6, "JIT201")}


def test_a_reassignment_after_the_use_is_not_read_there():
    # The constant meets `y` while it is still the float32 parameter; the float64 cast
    # comes later and no longer meets it.
    source = """
    import tensorflow as tf
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def f(y):
        c = tf.constant([0.5, 1.5])
        z = y * c
        y = tf.cast(y, tf.float64)
        return z, y
    """
    assert found(source, {"JIT201"}) == set()


_COND = """
import tensorflow as tf

def to_channels(img, n):
    img = tf.reshape(img, (-1, n, n, 4))
    return tf.transpose(img, [0, 3, 1, 2])

@tf.function(jit_compile=True)
def assemble(patches, n):
    def one_pass():
        channels = to_channels(patches, n)
        return tf.reduce_sum(channels, axis=1, keepdims=True)

    def looped():
        canvas = tf.zeros((1, 1, n, n), dtype=patches.dtype)
        i = tf.constant(0)
        _, canvas = tf.while_loop(
            lambda i, c: i < 3,
            lambda i, c: (i + 1, c),
            loop_vars=[i, canvas],
            shape_invariants=[i.get_shape(), tf.TensorShape([SIZE, 1, n, n])],
        )
        return canvas

    return tf.cond(tf.shape(patches)[0] < 64, one_pass, looped)
"""


def test_cond_branches_with_different_static_shapes_are_reported():
    source = _COND.replace("SIZE", "1")
    assert found(source, {"JIT202"}) == {(25, "JIT202")}


def test_cond_branches_with_the_same_static_shape_are_not_reported():
    # The one-pass branch reshapes to a literal batch of 1 as well.
    source = _COND.replace("SIZE", "1").replace("(-1, n, n, 4)", "(1, n, n, 4)")
    assert found(source, {"JIT202"}) == set()


def test_an_unknown_size_on_one_side_proves_nothing():
    source = _COND.replace("SIZE", "m")
    assert found(source, {"JIT202"}) == set()


def test_a_helper_result_is_read_with_the_arguments_of_its_call():
    # `pad_to(x, 1)` and `pad_to(x, 2)`: the same helper, a different size per call site.
    source = """
    import tensorflow as tf

    def pad_to(x, k):
        return tf.zeros((k, 3))

    @tf.function(jit_compile=True)
    def f(x):
        return tf.cond(x[0] > 0, lambda: pad_to(x, 1), lambda: pad_to(x, K))
    """
    assert found(source.replace("K", "2"), {"JIT202"}) == {(9, "JIT202")}
    assert found(source.replace("K", "1"), {"JIT202"}) == set()
    named = """
    import tensorflow as tf

    def pad_to(x, k):
        return tf.zeros((k, 3))

    @tf.function(jit_compile=True)
    def f(x):
        def small():
            return pad_to(x, 1)
        def large():
            return pad_to(x, K)
        return tf.cond(x[0] > 0, small, large)
    """
    assert found(named.replace("K", "2"), {"JIT202"}) == {(13, "JIT202")}
    assert found(named.replace("K", "1"), {"JIT202"}) == set()


# ----- parameters per call site ---------------------------------------------------------------

_HELPER = """
import numpy as np
import tensorflow as tf


def scale(y):
    c = tf.constant([0.5, 1.5])
    return y * c


@tf.function
def f(a):
    x32 = tf.ones([2])
    wide = WIDE
    return scale(x32) + tf.cast(scale(wide), tf.float32)
"""


def test_a_helper_called_with_float32_and_float64_is_reported_for_the_float64_call():
    source = _HELPER.replace("WIDE", "tf.ones([2], dtype=tf.float64)")
    assert found(source, {"JIT201"}) == {(7, "JIT201")}


def test_a_helper_called_with_float32_only_is_not_reported():
    source = _HELPER.replace("WIDE", "tf.ones([2], dtype=tf.float32)")
    assert found(source, {"JIT201"}) == set()


def test_a_numpy_float64_argument_adapts_to_the_constant():
    source = _HELPER.replace("WIDE", "np.ones(2)")
    assert found(source, {"JIT201"}) == set()


# ----- constructor arguments reaching `self` ----------------------------------------------------

_KERNEL = """
import tensorflow as tf


class Kernel:
    def __init__(self, width, dtype=tf.float32):
        self.dtype = dtype
        self.width = width

    @tf.function
    def __call__(self, x):
        scale = tf.constant([0.5, 1.5])
        return tf.cast(x, self.dtype) * scale


k = Kernel(2.0, CHOICE)
"""


def test_a_dtype_passed_to_the_constructor_reaches_self_dtype():
    source = _KERNEL.replace("CHOICE", "dtype=tf.float64")
    assert found(source, {"JIT201"}) == {(12, "JIT201")}


def test_the_default_dtype_reaches_self_dtype_where_no_call_passes_one():
    assert found(_KERNEL.replace(", CHOICE", ""), {"JIT201"}) == set()
    wide_default = _KERNEL.replace("dtype=tf.float32", "dtype=tf.float64")
    assert found(wide_default.replace(", CHOICE", ""), {"JIT201"}) == {(12, "JIT201")}


def test_calls_that_pass_different_dtypes_leave_self_dtype_unknown():
    source = _KERNEL.replace("CHOICE", "dtype=tf.float64") + "k32 = Kernel(1.0)\n"
    assert found(source, {"JIT201"}) == set()


# ----- `self` attributes in the values ---------------------------------------------------------

_LAYER = """
import keras


class Scale(keras.layers.Layer):
    def __init__(self, units, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.use_bias = use_bias

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units))
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,))
        else:
            self.bias = None

    def call(self, inputs):
        output = inputs @ self.kernel
        if TEST:
            output += self.bias
        return output
"""


def test_a_truth_test_of_a_layer_weight_is_reported_in_a_keras_only_file():
    assert found(_LAYER.replace("TEST", "self.bias"), {"JIT205"}) == {(20, "JIT205")}


def test_a_none_test_of_a_layer_weight_and_its_setting_are_fine():
    assert found(_LAYER.replace("TEST", "self.bias is not None"), {"JIT205"}) == set()
    assert found(_LAYER.replace("TEST", "self.use_bias"), {"JIT205"}) == set()


def test_an_attribute_also_assigned_through_a_tuple_is_not_followed():
    source = _LAYER.replace("TEST", "self.bias").replace(
        "self.units = units", "self.units, self.bias = units, True"
    )
    assert found(source, {"JIT205"}) == set()


# ----- return summaries ----------------------------------------------------------------------

_RETURNS = """
import tensorflow as tf


def widen(x):
    return tf.cast(x, tf.float64)


def same(x):
    return tf.abs(x)


@tf.function
def f(a):
    c = tf.constant([0.5, 1.5])
    return CALL * c
"""


def test_a_helper_returning_a_cast_has_the_cast_dtype():
    assert found(_RETURNS.replace("CALL", "widen(a)"), {"JIT201"}) == {(15, "JIT201")}


def test_a_helper_that_keeps_its_argument_dtype_is_read_at_each_call():
    wide = "same(tf.ones([2], dtype=tf.float64))"
    narrow = "same(tf.ones([2]))"
    source = _RETURNS.replace("CALL", wide) + f"\n\n@tf.function\ndef g():\n    return {narrow}\n"
    assert found(source, {"JIT201"}) == {(15, "JIT201")}
    assert found(_RETURNS.replace("CALL", narrow), {"JIT201"}) == set()


def test_a_numpy_array_keeps_float64_through_a_reassignment():
    # Observed (TF 2.21): InvalidArgumentError, Mul expected a double tensor but got float.
    source = """
    import numpy as np
    import tensorflow as tf
    def f():
        x = np.random.randn(3)
        x = np.clip(x, -1.0, 1.0)
        t = tf.constant(x)
        c = tf.constant([0.5, 1.5, 2.5])
        return t * c
    """
    assert found(source, {"JIT201"}) == {(8, "JIT201")}
    narrow = source.replace("np.random.randn(3)", "np.random.randn(3).astype(np.float32)")
    assert found(narrow, {"JIT201"}) == set()


def test_a_branch_lambda_inside_a_wrapper_is_read_without_error():
    # `found` fails on a rule error; the wrapped lambda's path is not followed.
    source = """
    import tensorflow as tf
    @tf.function(jit_compile=True)
    def f(x):
        return tf.cond(
            x[0] > 0,
            tf.autograph.experimental.do_not_convert(lambda: tf.zeros((1, 3))),
            lambda: tf.zeros((0x2, 3)),
        )
    """
    assert found(source, {"JIT202"}) == set()


def test_iterating_the_inputs_a_keras_layer_received_is_not_claimed():
    # A merge layer's inputs are a list of tensors (Keras 3's own Merge.call does this);
    # a loop over a TF op's result there is still one over a symbolic tensor.
    source = """
    import tensorflow as tf
    class Merge(tf.keras.layers.Layer):
        def call(self, inputs):
            if not isinstance(inputs, (list, tuple)):
                raise ValueError("a list of inputs")
            total = 0
            for x in inputs:
                total = total + x
            for i in LOOP:
                total = total + inputs[0][i]
            return total
    """
    assert found(source.replace("LOOP", "range(2)"), {"JIT205"}) == set()
    assert found(source.replace("LOOP", "tf.range(2)"), {"JIT205"}) == {(10, "JIT205")}
