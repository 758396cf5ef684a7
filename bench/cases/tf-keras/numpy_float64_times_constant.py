# source: https://github.com/tensorflow/tensorflow/issues/53405
# framework: tf
# shape: function
# expect: error TypeError
# hazard: 12 JIT201 `tf.constant([...])` of Python floats (float32) multiplied by a tensor built from a float64 NumPy array
import numpy as np
import tensorflow as tf


@tf.function
def weighted_energy(signal):
    window = tf.constant([0.25, 0.5, 1.0, 0.5, 0.25])
    return tf.reduce_sum(tf.square(signal * window), axis=-1)


if __name__ == "__main__":
    frames = np.linspace(0.0, 1.0, 10).reshape(2, 5)
    print(weighted_energy(frames).numpy())
