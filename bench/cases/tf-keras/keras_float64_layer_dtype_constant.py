# source: https://github.com/tensorflow/tensorflow/issues/51379
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 20 JIT201 `tf.constant([...])` of Python floats (float32) added to the output of a layer created with dtype="float64"
import numpy as np
import tensorflow as tf


class PotentialLayer(tf.keras.layers.Layer):
    """Physics layer that needs double precision: V(x) = k * |x - x0|^2."""

    def __init__(self, **kwargs):
        super().__init__(dtype="float64", **kwargs)

    def build(self, input_shape):
        self.k = self.add_weight(shape=(), initializer="ones", name="k")

    def call(self, x):
        x0 = tf.constant([0.5, -0.25, 1.0])
        return self.k * tf.reduce_sum(tf.square(x - x0), axis=-1, keepdims=True)


if __name__ == "__main__":
    layer = PotentialLayer()
    pts = np.random.default_rng(0).normal(size=(4, 3))
    print(layer(pts).numpy().ravel())
