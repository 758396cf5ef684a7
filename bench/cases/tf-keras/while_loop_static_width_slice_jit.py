# source: https://cocalc.com/github/tensorflow/docs-l10n/blob/master/site/en-snapshot/xla/known_issues.md
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf

WINDOW = 3


@tf.function(jit_compile=True)
def moving_average(x):
    n = tf.shape(x)[0] - WINDOW + 1
    out = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        window = tf.slice(x, [i], [WINDOW])
        out = out.write(i, tf.reduce_mean(window))
    return out.stack()


@tf.function(jit_compile=True)
def growing_sums(x):
    parts = []
    for k in range(1, 4):
        parts.append(tf.reduce_sum(x[:k]) + tf.reduce_sum(tf.zeros([k])))
    return tf.stack(parts)


if __name__ == "__main__":
    x = tf.constant([1.0, 2.0, 4.0, 8.0, 16.0])
    print(moving_average(x).numpy(), growing_sums(x).numpy())
