# source: https://github.com/openxla/xla/issues/6623
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 18 JIT203 `tf.print` (StringFormat/PrintV2) in ActivationMonitor.call of a model compiled with jit_compile=True
import numpy as np
import tensorflow as tf


class ActivationMonitor(tf.keras.layers.Layer):
    """Pass-through layer that reports the mean activation while debugging."""

    def __init__(self, tag, **kwargs):
        super().__init__(**kwargs)
        self.tag = tag

    def call(self, inputs):
        tf.print(self.tag, "mean:", tf.reduce_mean(inputs), "max:", tf.reduce_max(inputs))
        return inputs


def build_model():
    inputs = tf.keras.Input(shape=(8,))
    h = tf.keras.layers.Dense(16, activation="relu")(inputs)
    h = ActivationMonitor("hidden")(h)
    outputs = tf.keras.layers.Dense(1)(h)
    return tf.keras.Model(inputs, outputs)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 8)).astype("float32")
    y = rng.normal(size=(32, 1)).astype("float32")
    model = build_model()
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    print("trained")


if __name__ == "__main__":
    main()
