import tensorflow as tf


def pad_and_diffract(patches, pad=2):
    padded = tf.pad(patches, [[0, 0], [pad, pad], [pad, pad]])
    field = tf.signal.fft2d(tf.cast(padded, tf.complex64))
    return tf.abs(field) / tf.cast(tf.shape(padded)[1], tf.float32)


def reassemble(imgs_flat, batch_size=4):
    """Same accumulation as the batched version, but with static chunk bounds."""
    num_patches = imgs_flat.shape[0]
    total = 0.0
    for start in range(0, num_patches, batch_size):
        chunk = imgs_flat[start:start + batch_size]
        total += tf.reduce_sum(pad_and_diffract(chunk), axis=0)
    return total / num_patches


def translate_core(images, translations):
    images_batch = tf.shape(images)[0]
    translations = tf.broadcast_to(translations, [images_batch, 2])
    h = tf.cast(tf.shape(images)[1], tf.float32)
    ys = tf.range(h)[None, :, None] - translations[:, 0, None, None]
    xs = tf.range(h)[None, None, :] - translations[:, 1, None, None]
    return images * tf.exp(-0.01 * (ys ** 2 + xs ** 2))
