# source: https://github.com/openxla/xla/issues/6623
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class ActivationMonitor(tf.keras.layers.Layer):
    def call(self, inputs):
        tf.print("hidden mean:", tf.reduce_mean(inputs))
        return inputs


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((8,)),
        tf.keras.layers.Dense(16, activation="relu"),
        ActivationMonitor(),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse", jit_compile=False)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 8)).astype("float32")
    model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
