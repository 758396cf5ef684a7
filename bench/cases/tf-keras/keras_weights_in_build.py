# source: https://github.com/koshian2/OctConv-TFKeras/issues/16
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class OctConv2D(tf.keras.layers.Layer):
    def __init__(self, filters, alpha=0.5, **kwargs):
        super().__init__(**kwargs)
        low_ch = int(filters * alpha)
        self.high_conv = tf.keras.layers.Conv2D(filters - low_ch, 3, padding="same")
        self.low_conv = tf.keras.layers.Conv2D(low_ch, 3, padding="same")

    def build(self, input_shape):
        self.mix = self.add_weight(shape=(), initializer="ones", name="mix")

    def call(self, inputs):
        high = self.high_conv(inputs)
        low = self.low_conv(tf.nn.avg_pool2d(inputs, 2, 2, "SAME"))
        low_up = tf.repeat(tf.repeat(low, 2, axis=1), 2, axis=2)
        return tf.concat([high, self.mix * low_up], axis=-1)


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((8, 8, 3)),
        OctConv2D(4),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).random((8, 8, 8, 3)).astype("float32")
    model.fit(x, x.mean(axis=(1, 2, 3))[:, None], batch_size=4, epochs=2, verbose=0)
    print(len(model.trainable_weights))


if __name__ == "__main__":
    main()
