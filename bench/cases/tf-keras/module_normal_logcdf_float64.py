# source: https://github.com/tensorflow/tensorflow/issues/25520
# framework: tf
# shape: class
# expect: error TypeError
# hazard: 19 JIT201 `tf.constant(0.5)` of a Python float (float32) meets the float64 parameters and input in Normal.log_cdf
import numpy as np
import tensorflow as tf


class Normal(tf.Module):
    def __init__(self, loc, scale):
        super().__init__()
        self.loc = tf.Variable(np.asarray(loc), name="loc")
        self.scale = tf.Variable(np.asarray(scale), name="scale")

    @tf.function
    def log_cdf(self, x):
        z = (x - self.loc) / self.scale
        half = tf.constant(0.5)
        return tf.math.log(half * tf.math.erfc(-z / np.sqrt(2.0)))


if __name__ == "__main__":
    dist = Normal(loc=[0.0, 1.0], scale=[1.0, 2.0])
    print(dist.log_cdf(tf.constant([0.3, 3.5], dtype=tf.float64)).numpy())
