"""The reference TensorFlow scenarios of issue 4, found statically.

(a) PtychoPINN: a Keras layer whose `call` uses `tf.repeat`/`tf.tile` with tensor counts and
    slices inside a `tf.while_loop`, in a model compiled with `jit_compile=True` and run with
    varying batch sizes; (b) a `tf.print` on a `jit_compile=True` path; (c) MMD: a float64
    model whose `tf.constant(sigmas)` has no dtype and is cast to float64.
"""

from __future__ import annotations

import textwrap

from jitlint.engine.linter import lint_text
from jitlint.rules import all_rules

TF_CODES = {code for code, rule in all_rules().items() if rule.framework == "tensorflow"}


def lint(source: str) -> list[tuple[int, str, str]]:
    result = lint_text(textwrap.dedent(source), "scenario.py", TF_CODES)
    assert not result.errors, result.errors
    return [(d.line, d.code, d.severity) for d in result.diagnostics]


PTYCHO = """
import tensorflow as tf
from tensorflow import keras


class ExtractPatches(keras.layers.Layer):
    def __init__(self, size, **kwargs):
        super().__init__(**kwargs)
        self.size = size

    def call(self, inputs):
        images, offsets = inputs
        counts = tf.cast(tf.reduce_sum(tf.abs(offsets), axis=-1), tf.int32)
        repeated = tf.repeat(images, counts, axis=0)
        n = tf.shape(offsets)[0]
        grid = tf.tile(images, [n, 1, 1, 1])
        k = tf.reduce_max(counts)
        stacked = tf.tile(images, [k, 1, 1, 1])

        def body(i, acc):
            window = repeated[i : i + self.size]
            row = tf.tile(window, [i + 1, 1, 1, 1])
            head = repeated[:i]
            return i + 1, acc + tf.reduce_sum(row) + tf.reduce_sum(head)

        _, total = tf.while_loop(lambda i, acc: i < n, body, [0, 0.0])
        return grid * total + tf.reduce_sum(stacked)


def build_model(size):
    images = keras.Input((8, 8, 1))
    offsets = keras.Input((2,))
    out = ExtractPatches(size)([images, offsets])
    model = keras.Model([images, offsets], out)
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    return model


for batch in (8, 16, 32):
    build_model(4)
"""


def test_ptychopinn_repeat_tile_and_loop_slicing_are_found():
    found = lint(PTYCHO)
    # repeats and multiples computed from the batch's data: one XLA program per value
    assert (14, "JIT202", "warning") in found
    assert (18, "JIT202", "warning") in found
    # a tile count from the while_loop variable cannot be a compile-time constant
    assert (22, "JIT202", "error") in found
    # a slice whose size grows with the loop variable
    assert (23, "JIT202", "warning") in found
    # tf.shape-derived multiples (line 16) and the fixed-width window (line 21) are fine
    assert {line for line, _, _ in found} == {14, 18, 22, 23}


def test_ptychopinn_with_jit_compile_false_is_clean():
    assert lint(PTYCHO.replace("jit_compile=True", "jit_compile=False")) == []


def test_ptychopinn_at_the_default_jit_compile_is_found_by_jit213_only():
    # Keras 3's "auto" compiles with XLA on a GPU: what fails there is reported (the loop
    # variable as a tile count, the growing slice), the per-value recompilations are not.
    found = lint(PTYCHO.replace(", jit_compile=True", ""))
    assert found == [(22, "JIT213", "warning"), (23, "JIT213", "warning")]


TF_PRINT_UNDER_XLA = """
import tensorflow as tf
from tensorflow import keras


def log_batch(x):
    tf.print("batch mean", tf.reduce_mean(x))
    return x


@tf.function(jit_compile=True)
def train_step(x):
    return log_batch(x) * 2.0


class Probe(keras.layers.Layer):
    def call(self, inputs):
        tf.print(tf.shape(inputs))
        return inputs


model = keras.Sequential([Probe()])
model.compile(loss="mse", jit_compile=True)
"""


def test_tf_print_on_a_jit_compile_path_is_found():
    found = lint(TF_PRINT_UNDER_XLA)
    assert found == [(7, "JIT203", "error"), (18, "JIT203", "error")]


MMD = """
from functools import partial

import tensorflow as tf


def compute_pairwise_distances(x, y):
    norm = lambda v: tf.reduce_sum(tf.square(v), 1)
    return tf.transpose(norm(tf.expand_dims(x, 2) - tf.transpose(y)))


def gaussian_kernel_matrix(x, y, sigmas):
    beta = 1.0 / (2.0 * tf.expand_dims(sigmas, 1))
    dist = compute_pairwise_distances(x, y)
    s = tf.matmul(beta, tf.reshape(dist, (1, -1)))
    return tf.reshape(tf.reduce_sum(tf.exp(-s), 0), tf.shape(dist))


@tf.function(jit_compile=True)
def mmd_loss(source, target):
    sigmas = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 5, 10, 15, 20, 25, 30, 35, 100, 1e3]
    kernel = partial(
        gaussian_kernel_matrix, sigmas=tf.cast(tf.constant(sigmas), tf.float64)
    )
    cost = tf.reduce_mean(kernel(source, source))
    cost += tf.reduce_mean(kernel(target, target))
    cost -= 2 * tf.reduce_mean(kernel(source, target))
    return tf.where(cost > 0, cost, 0)
"""


def test_mmd_untyped_sigmas_give_jit201_and_nothing_about_exp():
    assert lint(MMD) == [(23, "JIT201", "error")]


def test_mmd_fix_creates_the_constant_as_float64():
    from jitlint.api import fix_source

    result = fix_source(textwrap.dedent(MMD), "mmd.py", unsafe=True, select=["JIT201"])
    assert "sigmas=tf.constant(sigmas, dtype=tf.float64)" in result.source
    assert not [d for d in result.remaining if d.code == "JIT201"]


TYPICAL = """
import numpy as np
import tensorflow as tf
from tensorflow import keras

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_loss = keras.metrics.Mean()


class Residual(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units)

    def build(self, input_shape):
        self.scale = self.add_weight(shape=(self.units,), initializer="ones")

    def call(self, inputs, training=False, mask=None):
        if training and mask is not None:
            inputs = inputs * tf.cast(mask, inputs.dtype)[..., None]
        batch = tf.shape(inputs)[0]
        flat = tf.reshape(inputs, [batch, -1])
        out = self.dense(flat) * self.scale
        if inputs.shape[-1] == self.units:
            out = out + inputs
        return tf.reshape(out, tf.concat([tf.shape(inputs)[:-1], [self.units]], 0))


@tf.function(jit_compile=True)
def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    n = tf.size(y)
    one_hot = tf.one_hot(y, depth=tf.shape(logits)[-1])
    ranks = tf.range(tf.shape(x)[0])
    return loss + tf.reduce_sum(one_hot) + tf.cast(n + tf.reduce_sum(ranks), tf.float32)


def preprocess(image, label):
    image = tf.image.resize(image, [32, 32]) / 255.0
    if tf.reduce_max(image) > 1.0:
        image = image / tf.reduce_max(image)
    return image, label


def main():
    model = keras.Sequential([Residual(32), keras.layers.Dense(10)])
    model.compile(optimizer="adam", loss=loss_fn)
    optimizer = keras.optimizers.Adam()
    data = np.random.rand(64, 28, 28, 1).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((data, np.zeros(64))).map(preprocess).batch(8)
    for epoch in range(3):
        for x, y in ds:
            loss = train_step(model, optimizer, x, y)
        print("epoch", epoch, float(loss))
"""


def test_typical_training_code_is_clean():
    assert lint(TYPICAL) == []
