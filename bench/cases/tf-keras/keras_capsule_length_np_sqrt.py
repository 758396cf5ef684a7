# source: https://github.com/tensorflow/tensorflow/issues/51082
# framework: tf
# shape: class
# expect: error NotImplementedError
# hazard: 31 JIT204 `np.sqrt` applied to a symbolic tensor inside CapsuleLength.call
import numpy as np
import tensorflow as tf


def squash(s, axis=-1):
    sq = tf.reduce_sum(tf.square(s), axis=axis, keepdims=True)
    return sq / (1.0 + sq) * s / tf.sqrt(sq + 1e-7)


class DigitCapsule(tf.keras.layers.Layer):
    def __init__(self, num_caps=4, dim=8, **kwargs):
        super().__init__(**kwargs)
        self.num_caps, self.dim = num_caps, dim

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.num_caps * self.dim),
                                 initializer="glorot_uniform", name="w")

    def call(self, x):
        u = tf.reshape(tf.matmul(x, self.w), (-1, self.num_caps, self.dim))
        return squash(u)


class CapsuleLength(tf.keras.layers.Layer):
    def call(self, caps):
        return np.sqrt(tf.reduce_sum(tf.square(caps), axis=-1) + 1e-7)


def main():
    inp = tf.keras.Input((12,))
    caps = DigitCapsule()(inp)
    out = CapsuleLength()(caps)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(8, 12)).astype("float32")
    model.fit(x, np.eye(4, dtype="float32")[np.arange(8) % 4], batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
