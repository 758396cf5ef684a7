# source: https://github.com/tensorflow/tensorflow/issues/36848
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class NoisyDense(tf.keras.layers.Layer):
    def __init__(self, units, noise=0.1, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.units, self.noise, self.use_bias = units, noise, use_bias

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform", name="w")
        if self.use_bias:
            self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

    def call(self, x, training=None):
        y = tf.matmul(x, self.w)
        if self.use_bias:
            y = y + self.b
        if training:
            y = y + tf.random.normal(tf.shape(y), stddev=self.noise)
        return y


def main():
    model = tf.keras.Sequential([tf.keras.Input((4,)), NoisyDense(8), tf.keras.layers.ReLU(), NoisyDense(1, use_bias=False)])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 4)).astype("float32")
    model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0)
    print(model.predict(x[:2], verbose=0).shape)


if __name__ == "__main__":
    main()
