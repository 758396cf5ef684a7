import tensorflow as tf


def _complexify(t):
    return tf.cast(t, tf.complex64)


def translate_images(images, offsets):
    """Integer-pixel shift of a (B, H, W, 1) batch by (B, 2) offsets (dy, dx)."""
    offsets = tf.cast(tf.round(offsets), tf.int32)

    def shift_one(args):
        img, off = args
        return tf.roll(img, shift=off, axis=[0, 1])

    return tf.map_fn(shift_one, (images, offsets), fn_output_signature=images.dtype)


class Translation(tf.keras.layers.Layer):
    def __init__(self, jitter_amt=0.0, **kwargs):
        super().__init__(**kwargs)
        self.jitter_amt = jitter_amt

    def call(self, inputs):
        images, offsets = inputs
        if offsets.dtype != tf.float32:
            tf.print("Translation: casting offsets from", offsets.dtype.name)
            offsets = tf.math.real(offsets) if offsets.dtype.is_complex else tf.cast(offsets, tf.float32)
        if self.jitter_amt:
            offsets = offsets + tf.random.normal(tf.shape(offsets), stddev=self.jitter_amt)
        return translate_images(images, offsets)
