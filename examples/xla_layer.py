"""A Keras layer compiled with XLA, with two ways to break the compile."""

import tensorflow as tf

FLOAT = tf.float64


class Upsample(tf.keras.layers.Layer):
    def call(self, x):
        # Debug output that works eagerly and in plain tf.function, but has no XLA kernel.
        tf.print("upsample input", tf.shape(x))
        factor = tf.reduce_max(tf.cast(tf.shape(x)[1:2], tf.int32))
        return tf.repeat(x, factor, axis=1)


def mmd_kernel(x, y):
    sigmas = tf.constant([1.0, 2.0, 4.0])
    sigmas = tf.cast(sigmas, FLOAT)
    distance = tf.reduce_sum((x - y) ** 2, axis=-1, keepdims=True)
    return tf.reduce_mean(tf.exp(-distance / sigmas))


@tf.function(jit_compile=True)
def step(x):
    return Upsample()(x)


def main():
    x = tf.ones((2, 3, 4))
    print(step(x).shape)
    print(mmd_kernel(tf.ones((2, 3), FLOAT), tf.zeros((2, 3), FLOAT)))


if __name__ == "__main__":
    main()
