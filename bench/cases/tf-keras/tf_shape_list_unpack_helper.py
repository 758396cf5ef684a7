# source: https://github.com/tensorflow/tensorflow/issues/48305
# framework: tf
# shape: function
# expect: error OperatorNotAllowedInGraphError
# hazard: 10 JIT205 `[rows, cols] = tf.shape(x)` unpacks a symbolic tensor in a helper a tf.function calls
import tensorflow as tf


def zeros_shaped_like(x):
    [rows, cols] = tf.shape(x)
    return tf.zeros([rows, cols])


@tf.function
def model(h):
    return zeros_shaped_like(h) + h


print(model(tf.ones([3, 3])))
