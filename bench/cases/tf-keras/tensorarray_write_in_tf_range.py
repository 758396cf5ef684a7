# source: https://github.com/tensorflow/tensorflow/issues/46518
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


@tf.function
def appended_in_python_loop(n):
    # A Python range: the loop is unrolled while tracing, so the list holds n tensors.
    values = []
    for i in range(n):
        values.append(i)
    return tf.stack(values)


@tf.function
def written_in_staged_loop(n):
    # The staged loop's list: a TensorArray written on every iteration of tf.while_loop.
    array = tf.TensorArray(dtype=tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        array = array.write(i, i)
    return array.stack()


print(appended_in_python_loop(4))
print(written_in_staged_loop(tf.constant(4)))
