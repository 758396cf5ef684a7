# source: https://github.com/tensorflow/tensorflow/issues/37440
# framework: tf
# shape: class
# expect: error OperatorNotAllowedInGraphError
# hazard: 15 JIT205 Python `for` over `tf.range(...)` (a symbolic tensor) inside a Keras Loss.call, which Keras runs without AutoGraph
import numpy as np
import tensorflow as tf


class PerOutputMSE(tf.keras.losses.Loss):
    """Sum of per-output MSEs, weighted by a fixed schedule."""

    def call(self, y_true, y_pred):
        total = 0.0
        for i in tf.range(tf.shape(y_true)[1]):
            w = 1.0 / tf.cast(i + 1, tf.float32)
            total += w * tf.reduce_mean(tf.square(y_true[:, i] - y_pred[:, i]))
        return total


def main():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss=PerOutputMSE())
    rng = np.random.default_rng(0)
    model.fit(rng.normal(size=(8, 4)), rng.normal(size=(8, 3)), batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
