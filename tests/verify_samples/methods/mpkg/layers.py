import keras
import tensorflow as tf


class Project(keras.layers.Layer):
    """A Keras layer whose `call` asserts on a tensor: Keras 3 does not autograph `call`."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units))

    def call(self, x):
        assert tf.reduce_all(tf.math.is_finite(x)), "inputs must be finite"
        return tf.matmul(x, self.w)
