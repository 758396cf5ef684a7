# source: https://github.com/keras-team/keras-io/issues/1541
# framework: tf
# shape: class
# expect: ok
# gpu-only: the model is compiled with the default jit_compile="auto"; Keras 3 turns XLA on only when a non-CPU device exists, so the PyFunc op is never compiled here
# hazard: 26 JIT213 `tf.numpy_function` (PyFunc, no XLA kernel) in a custom augmentation layer of a model left at jit_compile="auto"
import numpy as np
import keras
import tensorflow as tf


def _random_gamma_correction(images, seed):
    rng = np.random.default_rng(int(seed))
    gamma = rng.uniform(0.7, 1.4, size=(images.shape[0], 1, 1, 1))
    return np.clip(images, 0.0, 1.0) ** gamma.astype(images.dtype)


class RandomGamma(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def call(self, images, training=None):
        if not training:
            return images
        seed = tf.random.uniform([], 0, 2**31 - 1, dtype=tf.int64)
        out = tf.numpy_function(_random_gamma_correction, [images, seed], images.dtype)
        out.set_shape(images.shape)
        return out


def main():
    model = keras.Sequential([
        keras.Input((8, 8, 1)),
        RandomGamma(),
        keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(3),
    ])
    model.compile(optimizer="sgd",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(1)
    x = rng.random((12, 8, 8, 1)).astype("float32")
    y = rng.integers(0, 3, size=(12,))
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok, jit_compile =", model.jit_compile)


if __name__ == "__main__":
    main()
