# source: https://github.com/tensorflow/tensorflow/issues/38920
# framework: tf
# shape: class
# expect: error OperatorNotAllowedInGraphError
# hazard: 22 JIT205 `if` on the recurrent state tensor inside a custom RNN cell's call (no AutoGraph conversion for Keras 3 cells)
import numpy as np
import tensorflow as tf


class ResettingCell(tf.keras.layers.Layer):
    """Leaky integrator that resets its state once it exceeds a threshold."""

    def __init__(self, units=4, threshold=2.0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units
        self.threshold = threshold
        self.proj = tf.keras.layers.Dense(units)

    def call(self, inputs, states):
        h = states[0] * 0.9 + self.proj(inputs)
        if tf.reduce_max(h) > self.threshold:
            h = tf.zeros_like(h)
        return h, [h]


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((5, 3)),
        tf.keras.layers.RNN(ResettingCell()),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(8, 5, 3)).astype("float32")
    model.fit(x, x.sum(axis=(1, 2))[:, None], batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
