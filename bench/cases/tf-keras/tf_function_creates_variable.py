# source: https://github.com/tensorflow/tensorflow/issues/26812
# framework: tf
# shape: function
# expect: error ValueError
# hazard: 12 JIT206 `tf.Variable(...)` created in the body of a tf.function, i.e. on every trace
import tensorflow as tf


@tf.function
def affine(x):
    a = tf.constant([[10.0, 10.0], [11.0, 1.0]])
    b = tf.Variable(12.0)
    return tf.matmul(a, x) + b


if __name__ == "__main__":
    print(affine(tf.eye(2)).numpy())
