import tensorflow as tf


def pad_and_diffract(patches, pad=2):
    """Far-field amplitude of (B, N, N) real patches."""
    padded = tf.pad(patches, [[0, 0], [pad, pad], [pad, pad]])
    field = tf.signal.fft2d(tf.cast(padded, tf.complex64))
    return tf.abs(field) / tf.cast(tf.shape(padded)[1], tf.float32)


def reassemble_batched(imgs_flat, batch_size=4):
    """Accumulates the diffraction of all patches, `batch_size` patches at a time."""
    num_patches = tf.shape(imgs_flat)[0]
    n = imgs_flat.shape[1] + 4
    acc0 = tf.zeros([n, n])

    def cond(i, acc):
        return i < num_patches

    def body(i, acc):
        start_idx = i
        end_idx = tf.minimum(i + batch_size, num_patches)
        chunk = imgs_flat[start_idx:end_idx]
        amp = pad_and_diffract(chunk)
        return end_idx, acc + tf.reduce_sum(amp, axis=0)

    _, total = tf.while_loop(cond, body, [tf.constant(0), acc0])
    return total / tf.cast(num_patches, tf.float32)
