# source: https://github.com/tensorflow/tensorflow/issues/53406
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf

tf.keras.backend.set_floatx("float64")


class FeatureScaler(tf.keras.layers.Layer):
    def call(self, inputs):
        scales = tf.constant([0.5, 2.0, 1.25, 4.0], dtype=self.compute_dtype)
        offset = tf.constant(0.1, dtype=tf.keras.backend.floatx())
        return inputs * scales + offset


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((4,)),
        FeatureScaler(),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 4))
    model.fit(x, x.sum(axis=1, keepdims=True), batch_size=8, epochs=1, verbose=0)
    print(model.predict(x[:2], verbose=0).dtype)


if __name__ == "__main__":
    main()
