"""TensorFlow behaviour behind issue #30's TF rule cases, checked against the installed
TensorFlow (XLA on CPU): what JIT202, JIT205, JIT206 and JIT208 now report fails (or
misbehaves) as their messages say, and the shapes they leave alone run."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from helpers import found

pytestmark = pytest.mark.tensorflow


def _loop(tf, use):  # type: ignore[no-untyped-def]
    """`use(i)` inside a jit-compiled tf.while_loop, `i` its loop variable."""

    @tf.function(jit_compile=True)
    def run():
        def body(i, acc):
            return i + 1, acc + tf.reduce_sum(tf.cast(use(i), tf.float32))

        return tf.while_loop(lambda i, a: i < 2, body, [0, 0.0])[1]

    return run()


def test_bincount_of_a_loop_value_needs_a_constant_even_with_its_lengths_given():
    tf = pytest.importorskip("tensorflow")
    labels = tf.constant([0, 1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="compile-time constant"):
        _loop(tf, lambda i: tf.math.bincount(labels + i, minlength=4, maxlength=4))


def test_a_computed_slice_size_and_top_k_compile():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant([3.0, 1.0, 2.0])
    assert float(_loop(tf, lambda i: tf.slice(x, [0], [i + 1]))) > 0.0
    assert float(_loop(tf, lambda i: tf.math.top_k(x, k=i + 1).values)) > 0.0


def _grow(tf, jit):  # type: ignore[no-untyped-def]
    @tf.function(jit_compile=jit)
    def grow(x):
        return tf.while_loop(
            lambda i, a: i < 2,
            lambda i, a: (i + 1, tf.concat([a, a[:1]], 0)),
            [0, x],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
        )[1]

    return grow(tf.ones([2]))


def test_an_unknown_shape_invariant_runs_in_graph_mode_and_fails_under_xla():
    tf = pytest.importorskip("tensorflow")
    assert _grow(tf, False).shape == (4,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="loop body do not match"):
        _grow(tf, True)


def test_a_raise_under_a_tensor_if_raises_whatever_the_value():
    tf = pytest.importorskip("tensorflow")

    @tf.function
    def checked(x):
        if tf.reduce_mean(x) > 100.0:
            raise ValueError("diverged")
        return x

    with pytest.raises(ValueError, match="diverged"):
        checked(tf.ones([2]))


def test_an_fstring_of_a_tensor_is_made_once_from_the_symbolic_tensor():
    tf = pytest.importorskip("tensorflow")
    made = []

    @tf.function
    def step(x):
        loss = tf.reduce_mean(x)
        made.append(f"loss = {loss}")
        return loss

    step(tf.ones([2]))
    step(tf.ones([2]) * 3.0)
    assert len(made) == 1 and "Tensor(" in made[0]


def test_keras3_refuses_a_weight_made_in_call_also_lazily():
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    if int(keras.__version__.split(".")[0]) < 3:
        pytest.skip("Keras 2 makes the weight on the first call")

    class Bias(keras.layers.Layer):
        def call(self, x):
            if not hasattr(self, "bias"):
                self.bias = self.add_weight(shape=(), initializer="zeros")
            return x + self.bias

    with pytest.raises(ValueError, match="already built"):
        tf.function(Bias())(tf.ones([2]))


def _imported(source: str, folder: Path, name: str) -> ModuleType:
    """`source` as a module read from a file: autograph converts only functions whose
    source it can read (an exec'd function runs unconverted)."""
    (folder / f"{name}.py").write_text(source)
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


_UNPACKS = """
import tensorflow as tf
@tf.function
def pad_to(x):
    batch, length = tf.shape(x)
    return tf.zeros([batch, length + 1])
"""


def test_an_unpacked_tensor_fails_in_autographed_code_and_jit205s_fix_runs(tmp_path):
    tf = pytest.importorskip("tensorflow")
    from jitlint import fix_source

    assert found(_UNPACKS, {"JIT205"}) == {(5, "JIT205")}
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over"):
        _imported(_UNPACKS, tmp_path, "unpacks_bad").pad_to(tf.ones([2, 3]))
    result = fix_source(_UNPACKS, "m.py", unsafe=True, select=["JIT205"])
    assert "tf.unstack(tf.shape(x), num=2)" in result.source
    assert not result.remaining
    fixed = _imported(result.source, tmp_path, "unpacks_fixed")
    assert fixed.pad_to(tf.ones([2, 3])).shape == (2, 4)


def test_python_iterates_no_graph_tensor_even_of_known_shape_but_for_converts():
    tf = pytest.importorskip("tensorflow")

    @tf.function
    def spread(t):
        return tf.add(*t)

    @tf.function
    def listed(t):
        return tf.stack([row * 2.0 for row in t])

    @tf.function
    def looped(t):
        total = tf.zeros([3])
        for row in t:
            total += row
        return total

    for bad in (spread, listed):
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over"):
            bad(tf.ones([2, 3]))
    assert looped(tf.ones([2, 3])).numpy().tolist() == [2.0, 2.0, 2.0]


_BRANCHES = {
    "unbound": """
@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2.0
    return y
""",
    "none": """
@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:
        y = None
    else:
        y = x
    return y
""",
    "structure": """
@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:
        y = [x, x]
    else:
        y = [x]
    return y
""",
    "no-return": """
@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:
        return x * 2.0
""",
}


@pytest.mark.parametrize("kind", sorted(_BRANCHES))
def test_autograph_refuses_branches_jit205_reports_as_different(kind, tmp_path):
    tf = pytest.importorskip("tensorflow")
    from jitlint.rules.tf.jit205_symbolic_bool import _MISMATCH_ERRORS

    source = "import tensorflow as tf\n" + _BRANCHES[kind]
    assert {code for _, code in found(source, {"JIT205"})} == {"JIT205"}
    error, _, message = _MISMATCH_ERRORS[kind].format(name="y").partition(": ")
    module = _imported(source, tmp_path, f"branches_{kind.replace('-', '_')}")
    with pytest.raises((ValueError, TypeError)) as raised:
        module.f(tf.ones([2]))
    assert type(raised.value).__name__ == error
    expected = message if kind != "none" else "' is None at the end"
    assert expected in str(raised.value)


def test_branches_of_one_structure_run():
    tf = pytest.importorskip("tensorflow")

    @tf.function
    def f(x):
        y = x
        if tf.reduce_sum(x) > 0:
            y = x * 2.0
            unused = y + 1.0  # noqa: F841 - not live after the if: no cond output
        if tf.reduce_min(x) > 0.0:
            return y
        return -y

    assert f(tf.ones([2])).numpy().tolist() == [2.0, 2.0]


_STAGED_APPEND = """
import tensorflow as tf
@tf.function
def collect(x, n):
    out = []
    for i in tf.range(n):
        out.append(x * tf.cast(i, tf.float32))
    return tf.stack(out)
@tf.function
def staged(x, n):
    out = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        out = out.write(i, x * tf.cast(i, tf.float32))
    return out.stack()
"""


def test_a_list_grown_in_a_staged_loop_is_out_of_scope_and_a_tensorarray_runs(tmp_path):
    tf = pytest.importorskip("tensorflow")
    assert found(_STAGED_APPEND, {"JIT208"}) == {(7, "JIT208")}
    module = _imported(_STAGED_APPEND, tmp_path, "staged_append")
    with pytest.raises(Exception, match="out of scope") as raised:
        module.collect(tf.ones([2]), tf.constant(3))
    assert type(raised.value).__name__ == "InaccessibleTensorError"
    assert module.staged(tf.ones([2]), tf.constant(3)).shape == (3, 2)


_OUTER_STATE = """
import tensorflow as tf
class Counter:
    def __init__(self):
        self.count = 0
calls = Counter()
@tf.function
def step(x, stats):
    stats.count += 1
    calls.last = x
    return x * 2.0
"""


def test_state_on_outer_objects_moves_once_per_trace_and_keeps_the_symbolic_tensor(tmp_path):
    tf = pytest.importorskip("tensorflow")
    assert found(_OUTER_STATE, {"JIT208"}) == {(9, "JIT208"), (10, "JIT208")}
    module = _imported(_OUTER_STATE, tmp_path, "outer_state")
    stats = module.Counter()
    for _ in range(3):
        module.step(tf.ones([2]), stats)
    assert stats.count == 1
    assert "'x:0'" in repr(module.calls.last)  # the graph's placeholder, not a value


_OPTIMIZER_PER_RATE = """
import numpy as np
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
@tf.function
def train_step(x, y, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
def search(rates):
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    for rate in rates:
        optimizer = tf.keras.optimizers.Adam(rate)
        train_step(x, y, optimizer)
def search_built(rates):
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    for rate in rates:
        optimizer = tf.keras.optimizers.Adam(rate)
        optimizer.build(model.trainable_variables)
        train_step(x, y, optimizer)
"""


def test_a_new_optimizer_per_iteration_makes_variables_on_a_later_trace(tmp_path):
    pytest.importorskip("tensorflow")
    assert found(_OPTIMIZER_PER_RATE, {"JIT206"}) == {(15, "JIT206")}
    module = _imported(_OPTIMIZER_PER_RATE, tmp_path, "optimizer_per_rate")
    with pytest.raises(ValueError, match=r"singleton tf\.Variables"):
        module.search([0.1, 0.01])
    module = _imported(_OPTIMIZER_PER_RATE, tmp_path, "optimizer_per_rate_built")
    module.search_built([0.1, 0.01])  # built before the call: no variable in the trace
