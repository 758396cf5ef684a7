# source: https://github.com/tensorflow/probability/issues/934
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 20 JIT203 `tf.random.gamma` (RandomGamma) has no XLA kernel; GammaNoise is part of a model compiled with jit_compile=True
import numpy as np
import keras
import tensorflow as tf


class GammaNoise(keras.layers.Layer):
    """Multiplicative Gamma(k, 1/k) noise with mean 1, applied while training."""

    def __init__(self, concentration=20.0, **kwargs):
        super().__init__(**kwargs)
        self.concentration = concentration

    def call(self, x, training=False):
        if training:
            g = tf.random.gamma(tf.shape(x), alpha=self.concentration, beta=self.concentration)
            return x * g
        return x


def main():
    model = keras.Sequential([
        keras.Input((5,)),
        keras.layers.Dense(8, activation="relu"),
        GammaNoise(),
        keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    x = np.random.default_rng(0).normal(size=(16, 5)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("done")


if __name__ == "__main__":
    main()
