# source: https://github.com/keras-team/keras/pull/22512
# framework: tf
# shape: class
# expect: ok
# gpu-only: compile() keeps the default jit_compile="auto", which Keras 3 resolves to XLA when a GPU is visible; on this CPU-only run XLA stays off and fit succeeds
# hazard: 17 JIT213 `tf.print` (StringFormat/PrintV2, no XLA kernel) in GradientProbe.call of a model left at jit_compile="auto"
import numpy as np
import tensorflow as tf
from tensorflow import keras


class GradientProbe(keras.layers.Layer):
    """Identity layer that logs the batch statistics of its input."""

    def call(self, inputs, training=None):
        if training:
            tf.print("probe: std", tf.math.reduce_std(inputs))
        return inputs


def main():
    model = keras.Sequential([
        keras.Input((6,)),
        keras.layers.Dense(12, activation="tanh"),
        GradientProbe(),
        keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 6)).astype("float32")
    y = np.sin(x[:, :1])
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    print("jit_compile resolved to", model.jit_compile)


if __name__ == "__main__":
    main()
