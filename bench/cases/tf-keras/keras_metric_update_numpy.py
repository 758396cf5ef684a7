# source: https://github.com/tensorflow/tensorflow/issues/38038
# framework: tf
# shape: class
# expect: error AttributeError
# hazard: 17 JIT204 `.numpy()` on y_pred inside Metric.update_state, which fit() runs inside a traced train function
import numpy as np
import tensorflow as tf


class MeanAbsolutePercentage(tf.keras.metrics.Metric):
    def __init__(self, name="mape", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_weight(name="total", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        pred = y_pred.numpy()
        true = y_true.numpy()
        err = np.abs((true - pred) / np.maximum(np.abs(true), 1e-7)).mean()
        self.total.assign_add(err)
        self.count.assign_add(1.0)

    def result(self):
        return 100.0 * self.total / self.count


def main():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", metrics=[MeanAbsolutePercentage()])
    x = np.random.default_rng(0).normal(size=(16, 3)).astype("float32")
    model.fit(x, x.sum(axis=1, keepdims=True) + 5.0, batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
