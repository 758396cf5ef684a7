import tensorflow as tf


@tf.autograph.experimental.do_not_convert
def clip_gradients(grads, max_norm):
    norm = tf.linalg.global_norm(grads)
    if norm > max_norm:
        scale = max_norm / norm
        return [g * scale for g in grads]
    return grads
