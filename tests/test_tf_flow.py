"""TF values per program point and static shapes per call site (issue 28): which bindings of
a local reach a read (python/reaching.py), dtypes that survive a reassignment, and `tf.cond`
branches whose static shapes differ."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import libcst as cst
import pytest
from helpers import found

from jitlint import fix_source
from jitlint.python.reaching import reaching
from jitlint.python.walker import iter_children
from jitlint.rules.tf.jit201_untyped_constant import UntypedConstant


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


def test_a_sure_binding_in_the_loop_body_before_the_read_stops_the_pass_before():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            y = a
            for i in range(3):
                y = parts(y)
                use(y)
                y = join(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) == [2]


def test_a_binding_before_the_read_in_an_outer_loop_does_not_stop_an_inner_loop():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            for i in range(3):
                y = parts(y)
                for j in range(2):
                    use(y)
                    y = join(y)
        """,
        "y",
    )
    assert reaching(bindings, read, func) is None


def test_a_binding_in_one_branch_of_the_loop_body_does_not_stop_the_pass_before():
    func, bindings, read = _reads_and_bindings(
        """
        def f(y):
            for i in range(3):
                if c:
                    y = parts(y)
                use(y)
                y = join(y)
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


def test_a_constant_under_another_name_is_followed():
    # Spelled `make`, the constant is found only through the names the module rebinds (the
    # dtype model reads first the calls spelled `constant`, `convert_to_tensor`, ...).
    source = """
    import numpy as np
    import tensorflow as tf
    make = tf.constant
    x = tf.zeros([3], dtype="float64")
    y = x * make([0.5, 0.5, 0.5])
    """
    assert found(source, {"JIT201"}) == {(6, "JIT201")}


def test_a_numpy_array_first_in_matmul_is_reported_without_any_constant():
    # No call can make a marked tensor, so only the tf.matmul/tf.add calls are read.
    source = """
    import numpy as np
    import tensorflow as tf
    logits = tf.matmul(np.random.uniform(size=(3, 4)), tf.ones([4, 2]))
    total = tf.add(tf.ones([2]), np.ones(2))
    """
    assert found(source, {"JIT201"}) == {(4, "JIT201")}


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


# ----- NumPy float64 data kept by a tensor, meeting float32 (issue 30) ----------------------

_FLOAT64_MEETS_FLOAT32 = {
    "operator": """
    import numpy as np
    import tensorflow as tf
    window = tf.constant(np.hanning(8))  # reported
    out = tf.ones([8]) * window
    """,
    "concat": """
    import numpy as np
    import tensorflow as tf
    grid = tf.convert_to_tensor(np.linspace(0.0, 1.0, 8))  # reported
    out = tf.concat([tf.ones([8]), grid], 0)
    """,
    "matmul": """
    import numpy as np
    import tensorflow as tf
    weights = tf.Variable(np.random.rand(8, 8))  # reported
    out = tf.matmul(tf.ones([1, 8]), weights)
    """,
    "astype": """
    import numpy as np
    import tensorflow as tf
    steps = tf.constant(np.arange(8).astype(np.float64))  # reported
    out = tf.zeros([8], dtype=tf.float32) - steps
    """,
    "tf.function": """
    import numpy as np
    import tensorflow as tf
    @tf.function
    def ramp(t):
        r = tf.constant(np.arange(0, 8, 0.5))  # reported
        return t + r
    out = ramp(tf.ones([16]))
    """,
    "keras layer": """
    import numpy as np
    import tensorflow as tf
    tf.keras.backend.set_floatx("float32")
    class Taper(tf.keras.layers.Layer):
        def call(self, inputs):
            return inputs * tf.constant(np.array([0.5, 1.0, 0.5]))  # reported
    out = Taper()(tf.ones([3]))
    """,
    "numpy array first in tf.matmul": """
    import numpy as np
    import tensorflow as tf
    weights = tf.Variable(tf.random.normal([4, 2]))
    out = tf.matmul(np.random.uniform(size=(3, 4)), weights)  # reported
    """,
    "numpy array first in tf.add": """
    import numpy as np
    import tensorflow as tf
    out = tf.add(np.linspace(0.0, 1.0, 4), tf.zeros([4]))  # reported
    """,
}

# Process-wide state: checked under TensorFlow in a child process only.
_NUMPY_BEHAVIOR = """
import numpy as np
import tensorflow as tf
tf.experimental.numpy.experimental_enable_numpy_behavior()
out = tf.constant(np.hanning(8)) * tf.ones([8])
assert out.dtype == tf.float64
"""

_FINE = {
    "numpy array first in ops that adapt it": """
    import numpy as np
    import tensorflow as tf
    x = tf.ones([2, 2])
    out = (tf.multiply(np.ones((2, 2)), x), tf.subtract(np.ones((2, 2)), x))
    out = (tf.maximum(np.ones((2, 2)), x), tf.concat([np.ones((2, 2)), x], 0))
    out = (tf.matmul(x, np.ones((2, 2))), tf.add(np.ones((2, 2), dtype=np.float32), x))
    """,
    "raw arrays convert": """
    import numpy as np
    import tensorflow as tf
    x = tf.ones([8])
    out = (x * np.hanning(8), tf.concat([x, np.zeros(2)], 0), tf.matmul(tf.ones([2, 2]), np.eye(2)))
    """,
    "dtype given": """
    import numpy as np
    import tensorflow as tf
    out = tf.constant(np.hanning(8), dtype=tf.float32) * tf.ones([8])
    """,
    "float64 meets float64": """
    import numpy as np
    import tensorflow as tf
    out = tf.constant(np.hanning(8)) * tf.ones([8], dtype=tf.float64)
    """,
    "integer data": """
    import numpy as np
    import tensorflow as tf
    out = tf.constant(np.arange(8)) + tf.constant(np.full(8, 1))
    """,
    "keras weight promotes": """
    import numpy as np
    import keras
    import tensorflow as tf
    class Window(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(8,), initializer="ones")
        def call(self, inputs):
            return self.w * tf.constant(np.hanning(8))
    out = Window()(tf.ones([8]))
    """,
}


def _runs(source: str) -> None:
    exec(compile(textwrap.dedent(source), "<case>", "exec"), {"__name__": "__case__"})


@pytest.mark.parametrize("name", sorted(_FLOAT64_MEETS_FLOAT32))
def test_a_tensor_of_numpy_float64_meeting_float32_is_reported(name: str) -> None:
    source = textwrap.dedent(_FLOAT64_MEETS_FLOAT32[name])
    marked = next(n for n, line in enumerate(source.splitlines(), 1) if "# reported" in line)
    assert found(source, {"JIT201"}) == {(marked, "JIT201")}


@pytest.mark.parametrize("name", sorted(_FINE))
def test_numpy_data_that_converts_or_agrees_is_not_reported(name: str) -> None:
    assert found(_FINE[name], {"JIT201"}) == set()


@pytest.mark.tensorflow
@pytest.mark.parametrize("name", sorted(_FLOAT64_MEETS_FLOAT32))
def test_the_reported_numpy_cases_fail_under_tensorflow_and_run_fixed(name: str) -> None:
    pytest.importorskip("tensorflow")
    source = textwrap.dedent(_FLOAT64_MEETS_FLOAT32[name])
    with pytest.raises(Exception, match=r"double tensor|type float64"):
        _runs(source)
    result = fix_source(source, select=["JIT201"], unsafe=True)
    assert result.applied and not result.remaining
    _runs(result.source)


@pytest.mark.tensorflow
@pytest.mark.parametrize("name", sorted(_FINE))
def test_the_numpy_cases_left_alone_run_under_tensorflow(name: str) -> None:
    pytest.importorskip("tensorflow")
    _runs(_FINE[name])


def test_the_page_numpy_example_fails_and_its_fix_runs() -> None:
    pytest.importorskip("tensorflow")
    doc = UntypedConstant.documentation()
    bad = _page_blocks(doc, "Example")[1]
    good = _page_blocks(doc, "Use instead")[1]
    assert found(bad, {"JIT201"}) == {(5, "JIT201")}
    assert found(good, {"JIT201"}) == set()
    with pytest.raises(Exception, match="double tensor"):
        _runs(bad)
    _runs(good)


def _page_blocks(doc: str, heading: str) -> list[str]:
    section = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    assert section is not None
    return re.findall(r"```python\n(.*?)```", section.group(1), re.S)


def test_operators_under_numpy_behavior_promote_and_are_not_reported() -> None:
    assert found(_NUMPY_BEHAVIOR, {"JIT201"}) == set()
    plain = _NUMPY_BEHAVIOR.replace(
        "tf.experimental.numpy.experimental_enable_numpy_behavior()\n", ""
    )
    assert found(plain, {"JIT201"}) == {(4, "JIT201")}


@pytest.mark.tensorflow
def test_numpy_behavior_really_promotes_float32_with_float64() -> None:
    pytest.importorskip("tensorflow")
    child = subprocess.run([sys.executable, "-c", _NUMPY_BEHAVIOR], capture_output=True)
    assert child.returncode == 0, child.stderr.decode()[-2000:]


def test_a_parameter_annotated_as_a_python_int_is_not_data_xla_folds():
    # `size: int` is baked into each trace like any Python argument; the unannotated
    # `rows` may be a tensor whose value XLA folds into a constant per call.
    source = """
    import tensorflow as tf
    @tf.function(jit_compile=True)
    def windows(x, size: int, stride: int = 1, rows=2):
        def one(t):
            starts = tf.range(0, tf.shape(t)[0] - stride * (size - 1))
            return tf.reshape(tf.gather(t, starts), [rows * tf.shape(t)[0], -1])
        return one(x)
    """
    assert found(source, {"JIT202"}) == {(7, "JIT202")}


def test_wrapping_a_non_list_in_a_list_leaves_only_the_list():
    # Past `if not isinstance(y, list): y = [y]`, `y` is a list on every path: the
    # parameter reaches only as one, which the wrapped binding stands for.
    source = """
        def f(y):
            if not isinstance(y, (list, tuple)):
                y = [y]
            use(y)
        """
    func, bindings, read = _reads_and_bindings(source, "y")
    assert reaching(bindings, read, func) == [1]
    # Another test, or a body that binds something else than a list, keeps both.
    for other in ("if not isinstance(y, dict):", "if not y:"):
        changed = source.replace("if not isinstance(y, (list, tuple)):", other)
        func, bindings, read = _reads_and_bindings(changed, "y")
        assert reaching(bindings, read, func) == [0, 1], other
    func, bindings, read = _reads_and_bindings(source.replace("[y]", "g(y)"), "y")
    assert reaching(bindings, read, func) == [0, 1]


def test_iterating_a_tensor_wrapped_in_a_list_is_python_iteration():
    source = """
    import tensorflow as tf
    class Ensemble(tf.keras.layers.Layer):
        def call(self, seqs):
            if not isinstance(seqs, list):
                seqs = [seqs]
            out = [tf.reverse(s, axis=[1]) for s in seqs]
            for s in seqs:
                out.append(s)
            extra = tf.reverse(seqs[0], axis=[1])
            for row in extra:
                out.append(row)
            return out
    """
    # The last loop iterates a tensor in a Keras call (no autograph there): still reported.
    assert found(source, {"JIT205"}) == {(11, "JIT205")}


def _flag_value(source: str) -> str:
    """The kind of the TF value of `flag` where `if flag:` reads it."""
    from jitlint.model.context import FileContext

    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(module, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is cst.If and type(node.test) is cst.Name and node.test.value == "flag":
            return ctx.tf.values.value(node.test, [*path, node, node.test]).kind
        stack.extend((child, (*path, node)) for child in iter_children(node))
    raise AssertionError("no `if flag:`")


FLAG_HELPER = """\
import tensorflow as tf
def helper(x, flag=False):
    if flag:
        x = x * 2
    return x
@tf.function
def step(x, **options):
    return {calls}
"""


@pytest.mark.parametrize(
    ("calls", "kind"),
    [
        ("helper(x) + helper(x + 1)", "python"),  # every graph call leaves it at its default
        ("helper(x, flag=True)", "python"),
        (
            "helper(x, flag=tf.reduce_sum(x) > 0) + helper(x)",
            "tensor",
        ),  # what is passed, where it is
        ("helper(x, **options)", "unknown"),  # a spread may pass it
    ],
)
def test_a_helper_flag_left_at_its_default_is_a_python_value(calls, kind):
    assert _flag_value(FLAG_HELPER.format(calls=calls)) == kind


# ----- narrowing: the TF value of a name past a type test (issue 28 item 2) -----------------


def _used(source: str) -> tuple[str, str | None]:
    """The TF value's kind and dtype of the argument of `use(...)` in `source`."""
    from jitlint.model.context import FileContext

    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(module, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "use":
            arg = node.args[0]
            where = [*path, node, arg, arg.value]
            return ctx.tf.values.value(arg.value, where).kind, ctx.tf.dtypes.dtype(arg.value, where)
        stack.extend((child, (*path, node)) for child in iter_children(node))
    raise AssertionError("no `use(...)`")


_CONVERTED = """
import tensorflow as tf
def helper(y):
    if not isinstance(y, tf.Tensor):
        y = tf.convert_to_tensor(y, dtype=tf.float32)
    use(y)
    return y
@tf.function
def step(x):
    return helper(0.5) + x
"""


def test_past_a_conversion_unless_already_a_tensor_the_name_is_the_converted_tensor():
    # The Python float passes the `if` only where `isinstance` held, which it cannot: the
    # conversion is all that reaches the read.
    assert _used(_CONVERTED) == ("tensor", "float32")


def test_a_conversion_under_a_test_that_proves_nothing_keeps_both_readings():
    # `isinstance(y, tf.Tensor)` failing does not prove y is no tensor (a Variable is not a
    # tf.Tensor): the float passing by is kept, and y stays unknown.
    source = _CONVERTED.replace("if not isinstance(y, tf.Tensor):", "if isinstance(y, tf.Tensor):")
    assert _used(source) == ("unknown", None)


_BRANCHES = """
import tensorflow as tf
@tf.function
def step(x, flag: bool):
    if flag:
        y = tf.zeros([2])
    else:
        y = None
    TEST
    return x
"""


@pytest.mark.parametrize(
    ("test", "kind"),
    [
        ("if y is None:\n        use(y)", "python"),
        ("if y is not None:\n        pass\n    else:\n        use(y)", "python"),
        ("if tf.is_tensor(y):\n        use(y)", "tensor"),
        ("if isinstance(y, (tf.Tensor, tf.Variable)):\n        use(y)", "tensor"),
        ("if not hasattr(y, 'dtype'):\n        use(y)", "python"),
        ("if not tf.is_tensor(y):\n        return x\n    use(y)", "tensor"),  # early return
        ("assert tf.is_tensor(y)\n    use(y)", "tensor"),
        ("z = use(y) if tf.is_tensor(y) else x", "tensor"),
        ("z = tf.is_tensor(y) and use(y)", "tensor"),
        ("z = tf.is_tensor(y) or use(y)", "unknown"),
        # Tests that prove nothing about tensors leave the join.
        ("if y is not None:\n        use(y)", "unknown"),
        ("if not tf.is_tensor(y):\n        use(y)", "unknown"),  # a TensorArray is not one
        ("if isinstance(y, list):\n        use(y)", "unknown"),  # a list may hold tensors
        ("if y is None:\n        return x\n    use(y)", "unknown"),
        ("use(y)", "unknown"),
    ],
)
def test_a_guard_narrows_the_bindings_that_reach_the_read(test: str, kind: str):
    assert _used(_BRANCHES.replace("TEST", test))[0] == kind


def test_a_binding_made_after_the_test_is_not_narrowed_by_it():
    source = """
    import tensorflow as tf
    @tf.function
    def step(x, y: float):
        if y is None:
            y = tf.zeros([2])
            use(y)
        return x
    """
    assert _used(source)[0] == "tensor"


def test_narrowing_never_invents_a_tensor():
    # Every caller passes a Python float: inside the test for a tensor no binding holds, and
    # the read is unknown, not a tensor.
    source = """
    import tensorflow as tf
    def helper(y):
        if isinstance(y, tf.Tensor):
            use(y)
        return y
    @tf.function
    def step(x):
        return helper(0.5) + x
    """
    assert _used(source) == ("unknown", None)


def test_a_guard_in_a_nested_function_does_not_narrow_the_outer_read():
    source = """
    import tensorflow as tf
    @tf.function
    def step(x, flag: bool):
        if flag:
            y = tf.zeros([2])
        else:
            y = None
        if y is None:
            def later():
                return use(y)
        return x
    """
    assert _used(source)[0] == "unknown"


_MEETS_CONSTANT = """
import tensorflow as tf
def helper(y):
    if TEST:
        y = tf.convert_to_tensor(y, dtype=tf.float64)
    c = tf.constant([0.5, 1.5])
    return y * c
@tf.function
def step(x):
    return helper(0.5)
"""


def test_an_untyped_constant_meets_the_narrowed_float64_tensor():
    source = _MEETS_CONSTANT.replace("TEST", "not isinstance(y, tf.Tensor)")
    assert found(source, {"JIT201"}) == {(6, "JIT201")}


def test_an_untyped_constant_meets_a_name_that_may_still_be_the_python_float():
    source = _MEETS_CONSTANT.replace("TEST", "isinstance(y, tf.Tensor)")
    assert found(source, {"JIT201"}) == set()
