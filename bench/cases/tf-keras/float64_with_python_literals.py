# source: https://github.com/tensorflow/tensorflow/issues/25520
# framework: tf
# shape: function
# expect: ok
import numpy as np
import tensorflow as tf


@tf.function
def log_cdf(x, loc, scale):
    z = (x - loc) / scale
    half = tf.constant(0.5, dtype=tf.float64)
    return tf.math.log(half * tf.math.erfc(-z / np.sqrt(2.0)) + 1e-300)


if __name__ == "__main__":
    x = tf.constant([0.3, 3.5], dtype=tf.float64)
    print(log_cdf(x, 0.0, 1.0).numpy())
    print(tf.exp(x * 2.0 + 1.0).numpy())
