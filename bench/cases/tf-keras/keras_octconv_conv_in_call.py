# source: https://github.com/koshian2/OctConv-TFKeras/issues/16
# framework: tf
# shape: class
# expect: error ValueError
# hazard: 20 JIT206 `tf.keras.layers.Conv2D(...)` instantiated inside OctConv2D.call: its kernel is created inside fit()'s traced function
# hazard: 22 JIT206 second Conv2D created inside call (low-frequency path)
import numpy as np
import tensorflow as tf


class OctConv2D(tf.keras.layers.Layer):
    """Octave convolution: a high- and a low-frequency branch."""

    def __init__(self, filters, alpha=0.5, **kwargs):
        super().__init__(**kwargs)
        self.low_ch = int(filters * alpha)
        self.high_ch = filters - self.low_ch

    def call(self, inputs):
        high = tf.keras.layers.Conv2D(self.high_ch, 3, padding="same")(inputs)
        low_in = tf.nn.avg_pool2d(inputs, 2, 2, "SAME")
        low = tf.keras.layers.Conv2D(self.low_ch, 3, padding="same")(low_in)
        low_up = tf.image.resize(low, tf.shape(inputs)[1:3], method="nearest")
        return tf.concat([high, low_up], axis=-1)


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((8, 8, 3)),
        OctConv2D(4),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).random((8, 8, 8, 3)).astype("float32")
    model.fit(x, x.mean(axis=(1, 2, 3))[:, None], batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
