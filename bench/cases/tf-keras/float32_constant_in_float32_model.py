# source: https://github.com/tensorflow/tensorflow/issues/52941
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class Smoothing1D(tf.keras.layers.Layer):
    def call(self, x):
        kernel = tf.constant([0.25, 0.5, 0.25])
        k = tf.reshape(kernel, [3, 1, 1])
        return tf.nn.conv1d(x[..., None], k, stride=1, padding="SAME")[..., 0]


def main():
    model = tf.keras.Sequential([tf.keras.Input((10,)), Smoothing1D(), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    x = np.random.default_rng(0).normal(size=(8, 10)).astype("float32")
    model.fit(x, x.mean(axis=1, keepdims=True), batch_size=4, epochs=1, verbose=0)
    print(model.predict(x[:2], verbose=0).dtype)


if __name__ == "__main__":
    main()
