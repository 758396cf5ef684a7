# source: https://github.com/hoidn/PtychoPINN/blob/main/docs/bugs/XLA_INFERENCE_BUG.md
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class Translate(tf.keras.layers.Layer):
    def call(self, images):
        # One translation per group of four patches (gridsize 2).
        translations = tf.reduce_mean(images[::4], axis=2)[:, :2]
        images_batch = tf.shape(images)[0]
        trans_batch = tf.shape(translations)[0]

        def flip():
            return -translations  # flipped, same shape

        def keep():
            return translations

        adjusted = tf.cond(images_batch > 4 * trans_batch, flip, keep)
        phase = tf.repeat(tf.reduce_sum(adjusted, axis=1), 4, axis=0)[:, None, None]
        return tf.abs(tf.signal.fft2d(tf.complex(images, images * phase)))


def main():
    images = tf.keras.Input((8, 8))
    model = tf.keras.Model(images, Translate()(images))
    model.compile(jit_compile=True)
    batch = np.random.default_rng(0).normal(size=(8, 8, 8)).astype("float32")
    print(model.predict(batch, batch_size=8, verbose=0).shape)


if __name__ == "__main__":
    main()
