# source: https://github.com/tensorflow/tensorflow/issues/24476
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf

test_tensor = tf.constant([[1, 2, 3, 0.00004, 5], [6, 7, 8, 9, 10]], dtype=tf.float32)


@tf.function(jit_compile=True)
def small_entries(t):
    idx = tf.where(t < 1e-2)
    return idx, tf.gather_nd(t, idx)


if __name__ == "__main__":
    idx, vals = small_entries(test_tensor)
    print(idx.numpy().tolist(), vals.numpy())
