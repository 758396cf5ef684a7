# source: https://github.com/tensorflow/tensorflow/issues/52944
# framework: tf
# shape: function
# expect: error InvalidArgumentError
# hazard: 13 JIT203 `tf.print` inside a tf.function(jit_compile=True): StringFormat has no XLA kernel
import tensorflow as tf


@tf.function(jit_compile=True)
def smooth_l1(pred, target, beta=1.0):
    diff = tf.abs(pred - target)
    loss = tf.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
    tf.print("smooth_l1 per-element:", loss)
    return tf.reduce_mean(loss)


if __name__ == "__main__":
    p = tf.constant([0.2, 1.5, -3.0])
    t = tf.constant([0.0, 0.0, 0.0])
    print(float(smooth_l1(p, t)))
