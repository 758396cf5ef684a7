# source: https://github.com/tensorflow/tensorflow/issues/44904
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


@tf.function(jit_compile=True)
def mean_of_positive(x):
    positives = tf.boolean_mask(x, x > 0.0)
    return tf.reduce_sum(positives) / tf.maximum(tf.cast(tf.size(positives), tf.float32), 1.0)


if __name__ == "__main__":
    print(float(mean_of_positive(tf.constant([1.0, -2.0, 3.0, -0.5, 4.0]))))
