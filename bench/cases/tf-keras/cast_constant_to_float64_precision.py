# source: https://github.com/GPflow/GPflow/pull/2021
# framework: tf
# shape: function
# expect: observed inexact=3
# hazard: 14 JIT201 `tf.cast(tf.constant([...]), tf.float64)`: the Python floats are rounded to float32 first, so the float64 jitter/noise levels are not the intended values
import numpy as np
import tensorflow as tf

NOISE_LEVELS = [0.99999999, 1e-6, 0.1, 0.5]


@tf.function
def noisy_gram(x):
    levels = tf.cast(tf.constant(NOISE_LEVELS), tf.float64)
    gram = tf.matmul(x, x, transpose_b=True)
    eye = tf.eye(tf.shape(x)[0], dtype=tf.float64)
    return gram[None] + levels[:, None, None] * eye[None], levels


if __name__ == "__main__":
    x = tf.constant(np.random.default_rng(0).normal(size=(3, 2)))
    grams, levels = noisy_gram(x)
    print(grams.shape)
    inexact = int(np.sum(levels.numpy() != np.asarray(NOISE_LEVELS, dtype=np.float64)))
    print(f"observed: inexact={inexact}")
