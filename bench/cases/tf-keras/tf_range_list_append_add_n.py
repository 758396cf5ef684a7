# source: https://github.com/tensorflow/tensorflow/issues/29504
# framework: tf
# shape: function
# expect: error InaccessibleTensorError
# hazard: 13 JIT208 a Python list grown in `for i in tf.range(n)`, a loop autograph stages, and summed after it
import tensorflow as tf


@tf.function
def sum_of_digits(num_iter):
    digits = []
    for i in tf.range(num_iter):
        digits.append(i)
    return tf.add_n(digits)


print(sum_of_digits(5))
