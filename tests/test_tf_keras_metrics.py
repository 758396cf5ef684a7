"""Keras metrics in the TF model: `update_state` is graph code where a model runs the metric,
and eager code where an evaluation loop updates it (seen in google-research/deeplab2)."""

from __future__ import annotations

from helpers import found

METRIC = """
import tensorflow as tf


class Coverage(tf.keras.metrics.Metric):
    def __init__(self, name="coverage", **kwargs):
        super().__init__(name=name, **kwargs)
        self.seen = []
        self.count = 0

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.seen.extend(y_pred.numpy().tolist())
        self.count += 1

    def result(self):
        return tf.constant(len(self.seen))
"""
NUMPY_LINE = 12


def test_a_metric_used_nowhere_is_not_graph_code():
    assert found(METRIC, {"JIT204", "JIT208"}) == set()


def test_a_metric_created_inside_another_unused_metric_is_not_graph_code():
    wrapper = """

class Panoptic(tf.keras.metrics.Metric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = Coverage()

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.inner.update_state(y_true, y_pred)

    def result(self):
        return self.inner.result()
"""
    assert found(METRIC + wrapper, {"JIT204", "JIT208"}) == set()


def test_a_metric_updated_in_an_eager_loop_is_not_graph_code():
    loop = """

def evaluate(batches):
    metric = Coverage()
    for y_true, y_pred in batches:
        metric.update_state(y_true, y_pred)
    return metric.result()
"""
    assert found(METRIC + loop, {"JIT204", "JIT208"}) == set()


def test_a_metric_given_to_compile_is_graph_code():
    compiled = """

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[Coverage()])
"""
    codes = found(METRIC + compiled, {"JIT204", "JIT208"})
    assert (NUMPY_LINE, "JIT204") in codes
    assert any(code == "JIT208" for _, code in codes)


def test_a_metric_given_to_a_compile_with_run_eagerly_is_not_graph_code():
    eager = """

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[Coverage()], run_eagerly=True)
"""
    assert found(METRIC + eager, {"JIT204", "JIT208"}) == set()
    # A second model that runs it as a graph keeps it graph code.
    both = eager + "other = tf.keras.Sequential([tf.keras.Input((3,))])\n"
    both += 'other.compile(loss="mse", metrics=[Coverage()])\n'
    assert (NUMPY_LINE, "JIT204") in found(METRIC + both, {"JIT204"})
