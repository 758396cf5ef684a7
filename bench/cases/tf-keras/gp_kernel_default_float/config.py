import tensorflow as tf

_DEFAULT_FLOAT = tf.float64


def default_float():
    return _DEFAULT_FLOAT
