# source: https://github.com/hoidn/PtychoPINN/blob/main/docs/bugs/XLA_INFERENCE_BUG.md
# framework: tf
# shape: class
# expect: error UnimplementedError
# hazard: 23 JIT202 the `tf.cond` returns `(b*k, 2)` from one branch and `(b, 2)` from the other: under XLA its result has a bounded dynamic batch, which fft2d cannot take
import numpy as np
import tensorflow as tf


class Translate(tf.keras.layers.Layer):
    def call(self, images):
        # One translation per group of four patches (gridsize 2).
        translations = tf.reduce_mean(images[::4], axis=2)[:, :2]
        images_batch = tf.shape(images)[0]
        trans_batch = tf.shape(translations)[0]

        def broadcast():
            return tf.repeat(translations, images_batch // trans_batch, axis=0)

        def keep():
            return translations

        adjusted = tf.cond(tf.not_equal(images_batch, trans_batch), broadcast, keep)
        phase = tf.reduce_sum(adjusted, axis=1)[:, None, None]
        return tf.abs(tf.signal.fft2d(tf.complex(images, images * phase)))


def main():
    images = tf.keras.Input((8, 8))
    model = tf.keras.Model(images, Translate()(images))
    model.compile(jit_compile=True)
    batch = np.random.default_rng(0).normal(size=(8, 8, 8)).astype("float32")
    print(model.predict(batch, batch_size=8, verbose=0).shape)


if __name__ == "__main__":
    main()
