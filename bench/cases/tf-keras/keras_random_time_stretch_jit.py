# source: https://github.com/tensorflow/tensorflow/issues/122057
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 22 JIT202 `tf.repeat` with a repeat count drawn from tf.random.uniform: the Tile multiples are not a compile-time constant under jit_compile=True
import numpy as np
import keras
import tensorflow as tf


class RandomTimeStretch(keras.layers.Layer):
    """Slows a sequence down by a random integer factor, then resamples it to its length."""

    def __init__(self, max_factor=3, **kwargs):
        super().__init__(**kwargs)
        self.max_factor = max_factor

    def call(self, x, training=False):
        if not training:
            return x
        factor = tf.random.uniform([], 1, self.max_factor + 1, dtype=tf.int32)
        stretched = tf.repeat(x, factor, axis=1)
        idx = tf.range(tf.shape(x)[1]) * factor // 2
        return tf.gather(stretched, idx, axis=1)


def main():
    model = keras.Sequential([
        keras.Input((10, 3)),
        RandomTimeStretch(),
        keras.layers.Conv1D(8, 3, activation="relu"),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 10, 3)).astype("float32")
    y = x.mean(axis=(1, 2))[:, None]
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
