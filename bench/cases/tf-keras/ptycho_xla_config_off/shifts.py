import tensorflow as tf


class ShiftPhase(tf.keras.layers.Layer):
    """Applies one shift per group of four patches; the shifts are widened to the batch."""

    def call(self, patches):
        shifts = tf.reduce_mean(patches[::4], axis=2)[:, :2]
        n_patches = tf.shape(patches)[0]
        n_shifts = tf.shape(shifts)[0]
        per_patch = tf.cond(
            n_patches > n_shifts,
            lambda: tf.repeat(shifts, 4, axis=0),
            lambda: shifts,
        )
        phase = tf.reduce_sum(per_patch, axis=1)[:, None, None]
        return tf.abs(tf.signal.fft2d(tf.complex(patches, patches * phase)))
