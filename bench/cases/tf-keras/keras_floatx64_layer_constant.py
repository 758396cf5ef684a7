# source: https://github.com/tensorflow/tensorflow/issues/53406
# framework: tf
# shape: class
# expect: error TypeError
# hazard: 16 JIT201 `tf.constant([...])` of Python floats is float32 while set_floatx("float64") makes the layer input float64
import numpy as np
import tensorflow as tf

tf.keras.backend.set_floatx("float64")


class FeatureScaler(tf.keras.layers.Layer):
    """Applies fixed per-feature scales computed offline."""

    def call(self, inputs):
        scales = tf.constant([0.5, 2.0, 1.25, 4.0])
        return inputs * scales


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((4,)),
        FeatureScaler(),
        tf.keras.layers.Dense(8, activation="relu"),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 4))
    model.fit(x, x.sum(axis=1, keepdims=True), batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
