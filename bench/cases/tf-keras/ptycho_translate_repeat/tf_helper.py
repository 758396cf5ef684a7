import tensorflow as tf


def translate_core(images, translations):
    """Shift (B, H, W, 1) images by per-image (dy, dx); translations may be (1, 2) for the batch."""
    images_batch = tf.shape(images)[0]
    trans_batch = tf.shape(translations)[0]
    translations = tf.cond(
        images_batch != trans_batch,
        lambda: tf.repeat(translations, images_batch // trans_batch, axis=0),
        lambda: translations,
    )
    h = tf.cast(tf.shape(images)[1], tf.float32)
    w = tf.cast(tf.shape(images)[2], tf.float32)
    ys = tf.range(h)[None, :, None] - translations[:, 0, None, None]
    xs = tf.range(w)[None, None, :] - translations[:, 1, None, None]
    weight = tf.exp(-0.01 * (ys ** 2 + xs ** 2))
    return images * weight[..., None]


def process_in_chunks(patches, shift, chunk=3):
    n = tf.shape(patches)[0]

    def body(i, acc):
        end = tf.minimum(i + chunk, n)
        moved = translate_core(patches[i:end], shift)
        return end, acc + tf.reduce_sum(moved, axis=0)

    _, total = tf.while_loop(lambda i, acc: i < n, body,
                             [tf.constant(0), tf.zeros_like(patches[0])])
    return total
