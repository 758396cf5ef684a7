# source: https://github.com/tensorflow/tensorflow/issues/51082
# framework: tf
# shape: class
# expect: ok
import math

import numpy as np
import tensorflow as tf


class ScaledDotAttention(tf.keras.layers.Layer):
    def call(self, q, k, v):
        d = q.shape[-1]
        scale = 1.0 / np.sqrt(d)
        if q.shape[1] != k.shape[1]:
            raise ValueError("query and key lengths differ")
        scores = tf.matmul(q, k, transpose_b=True) * scale
        return tf.matmul(tf.nn.softmax(scores, axis=-1), v) * math.sqrt(1.0)


class CapsuleLength(tf.keras.layers.Layer):
    def call(self, caps):
        return tf.sqrt(tf.reduce_sum(tf.square(caps), axis=-1) + 1e-7)


def main():
    inp = tf.keras.Input((5, 8))
    att = ScaledDotAttention()(inp, inp, inp)
    out = CapsuleLength()(att)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(8, 5, 8)).astype("float32")
    model.fit(x, np.ones((8, 5), "float32"), batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
