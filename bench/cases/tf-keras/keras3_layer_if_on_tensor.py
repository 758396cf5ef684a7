# source: https://github.com/keras-team/keras-io/pull/1565
# framework: tf
# shape: class
# expect: error OperatorNotAllowedInGraphError
# hazard: 16 JIT205 `if` on a tensor inside a Keras 3 Layer.call: Keras 3 runs call without AutoGraph, so the condition is converted with bool()
import numpy as np
import keras
import tensorflow as tf


class SafeNormalize(keras.layers.Layer):
    """L2-normalises rows, skipping the division when the whole batch is zero."""

    def call(self, x):
        norms = tf.norm(x, axis=-1, keepdims=True)
        if tf.reduce_all(norms == 0.0):
            return x
        return x / tf.maximum(norms, 1e-12)


def main():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4), SafeNormalize(), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(8, 4)).astype("float32")
    model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
