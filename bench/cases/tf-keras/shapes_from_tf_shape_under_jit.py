# source: https://github.com/adalca/neurite/pull/94
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


@tf.function(jit_compile=True)
def pool_pairs(x):
    batch = tf.shape(x)[0]
    n = tf.shape(x)[1]
    pairs = tf.reshape(x, [batch, n // 2, 2])
    pooled = tf.reduce_max(pairs, axis=-1)
    pad = tf.zeros([batch, n - n // 2])
    positions = tf.range(n // 2)
    onehots = tf.one_hot(positions, n // 2)
    return tf.concat([pooled, pad], axis=1), tf.reduce_sum(onehots)


if __name__ == "__main__":
    out, s = pool_pairs(tf.reshape(tf.range(12, dtype=tf.float32), [2, 6]))
    print(out.numpy(), float(s))
