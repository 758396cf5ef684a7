# source: https://github.com/tensorflow/tensorflow/issues/108069
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


def scaled_square(x, s):
    return (x * s ** 2).astype(np.float32)


class TestModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(16, activation="relu")
        self.d2 = tf.keras.layers.Dense(4)

    def call(self, x):
        x = self.d1(x)
        y = tf.numpy_function(scaled_square, [x, np.float32(2.0)], tf.float32)
        y.set_shape(x.shape)
        return self.d2(y)


if __name__ == "__main__":
    model = TestModel()
    x = tf.random.normal([4, 10], seed=0)
    compiled = tf.function(model)
    print(model(x).shape, compiled(x).shape)
