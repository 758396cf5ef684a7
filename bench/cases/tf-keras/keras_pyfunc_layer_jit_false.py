# source: https://github.com/keras-team/keras/issues/18456
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


def _running_median(x, width):
    x = x.numpy()
    pad = int(width) // 2
    padded = np.pad(x, ((0, 0), (pad, pad)), mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, int(width), axis=1)
    return np.median(windows, axis=-1).astype(x.dtype)


class MedianFilter1D(tf.keras.layers.Layer):
    def __init__(self, width=3, **kwargs):
        super().__init__(**kwargs)
        self.width = width

    def call(self, x):
        y = tf.py_function(_running_median, [x, self.width], x.dtype)
        y.set_shape(x.shape)
        return y


def main():
    model = tf.keras.Sequential([tf.keras.Input((20,)), MedianFilter1D(5), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", jit_compile=False)
    x = np.random.default_rng(3).normal(size=(16, 20)).astype("float32")
    model.fit(x, x.mean(axis=1, keepdims=True), batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
