# source: https://github.com/hoidn/PtychoPINN/blob/71be462d3268b498b46637f860200cb7f2fc179d/docs/bugs/XLA_INFERENCE_BUG.md
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class BroadcastTranslation(tf.keras.layers.Layer):
    """Applies one learned (dy, dx) shift to every image of the batch."""

    def build(self, input_shape):
        self.shift = self.add_weight(shape=(1, 2), initializer="zeros", name="shift")

    def call(self, images):
        batch = tf.shape(images)[0]
        shifts = tf.repeat(self.shift, batch, axis=0)
        h, w = images.shape[1], images.shape[2]
        ys = tf.range(h, dtype=tf.float32)[None, :, None] - shifts[:, 0, None, None]
        xs = tf.range(w, dtype=tf.float32)[None, None, :] - shifts[:, 1, None, None]
        weight = tf.exp(-0.01 * (ys ** 2 + xs ** 2))
        return images * weight[..., None]


def main():
    model = tf.keras.Sequential([
        tf.keras.Input((8, 8, 1)),
        BroadcastTranslation(),
        tf.keras.layers.Conv2D(1, 3, padding="same"),
    ])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    x = np.random.default_rng(0).random((6, 8, 8, 1)).astype("float32")
    model.fit(x, x, batch_size=3, epochs=1, verbose=0)
    print(model.predict(x, batch_size=4, verbose=0).shape)


if __name__ == "__main__":
    main()
