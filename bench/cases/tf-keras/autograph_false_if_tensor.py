# source: https://TensorFlow.org/api_docs/python/tf/function
# framework: tf
# shape: function
# expect: error OperatorNotAllowedInGraphError
# hazard: 11 JIT205 `if` on a tensor in a tf.function created with autograph=False
import tensorflow as tf


def huber(residual, delta=1.0):
    a = tf.abs(residual)
    if tf.reduce_max(a) <= delta:
        return 0.5 * tf.reduce_mean(tf.square(residual))
    quad = tf.minimum(a, delta)
    return tf.reduce_mean(0.5 * quad ** 2 + delta * (a - quad))


fast_huber = tf.function(huber, autograph=False)

if __name__ == "__main__":
    print(float(fast_huber(tf.constant([0.1, -2.5, 0.4]))))
