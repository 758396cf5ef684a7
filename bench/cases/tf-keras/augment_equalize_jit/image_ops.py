import tensorflow as tf


def equalize_channel(channel, bins=256):
    """Histogram-equalise one (H, W) channel with values in [0, 255]."""
    hist = tf.histogram_fixed_width(channel, [0.0, 255.0], nbins=bins)
    cdf = tf.cumsum(hist)
    cdf_min = tf.reduce_min(tf.boolean_mask(cdf, cdf > 0))
    total = tf.cast(tf.size(channel), tf.int32)
    lut = tf.cast(cdf - cdf_min, tf.float32) * 255.0 / tf.cast(tf.maximum(total - cdf_min, 1), tf.float32)
    idx = tf.cast(tf.clip_by_value(channel, 0.0, 255.0), tf.int32)
    return tf.gather(lut, idx)


def equalize_image(image):
    channels = tf.unstack(image, axis=-1)
    return tf.stack([equalize_channel(c) for c in channels], axis=-1)
