# source: https://tensorflow.google.cn/guide/function?authuser=0
# framework: tf
# shape: class
# expect: observed recorded=1
# hazard: 19 JIT208 `self.recorded.append(...)` inside Layer.call: under fit() the call is traced once, so only one (symbolic) entry is recorded for 4 training steps
import numpy as np
import keras
import tensorflow as tf


class ActivationRecorder(keras.layers.Layer):
    """Keeps the mean activation of every batch for later plotting."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.recorded = []

    def call(self, x):
        self.recorded.append(tf.reduce_mean(x))
        return x


def main():
    recorder = ActivationRecorder()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                              recorder, keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype("float32")
    recorder.recorded.clear()
    model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0)
    print(f"observed: recorded={len(recorder.recorded)}")


if __name__ == "__main__":
    main()
