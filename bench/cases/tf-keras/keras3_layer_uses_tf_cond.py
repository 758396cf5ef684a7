# source: https://github.com/keras-team/keras-io/pull/1565
# framework: tf
# shape: class
# expect: ok
import numpy as np
import keras
import tensorflow as tf


class SafeNormalize(keras.layers.Layer):
    def call(self, x):
        norms = tf.norm(x, axis=-1, keepdims=True)
        return tf.cond(tf.reduce_all(norms == 0.0),
                       lambda: x,
                       lambda: x / tf.maximum(norms, 1e-12))


class ClippedSum(keras.layers.Layer):
    def call(self, x):
        total = keras.ops.sum(x, axis=-1, keepdims=True)
        return keras.ops.where(total > 1.0, keras.ops.ones_like(total), total)


def main():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4), SafeNormalize(), ClippedSum()])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    x = np.random.default_rng(0).normal(size=(8, 4)).astype("float32")
    model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
