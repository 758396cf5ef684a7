# source: https://github.com/keras-team/keras/pull/22512
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf
from tensorflow import keras


class GatedResidual(keras.layers.Layer):
    def build(self, input_shape):
        d = input_shape[-1]
        self.w = self.add_weight(shape=(d, 2 * d), initializer="glorot_uniform", name="w")

    def call(self, x, training=None):
        h, g = tf.split(tf.matmul(x, self.w), 2, axis=-1)
        out = x + tf.nn.sigmoid(g) * tf.nn.gelu(h)
        if training:
            out = tf.nn.dropout(out, rate=0.1)
        return out


def main():
    model = keras.Sequential([keras.Input((6,)), GatedResidual(), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 6)).astype("float32")
    model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
