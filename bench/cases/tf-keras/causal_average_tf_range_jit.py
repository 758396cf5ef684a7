# source: https://cocalc.com/github/tensorflow/docs-l10n/blob/master/site/en-snapshot/xla/known_issues.md
# framework: tf
# shape: function
# expect: error InvalidArgumentError
# hazard: 14 JIT202 `tf.ones([i + 1])` sized by the `tf.range` loop variable: a must-be-constant input that depends on the induction variable
import tensorflow as tf


@tf.function(jit_compile=True)
def cumulative_mean(x):
    n = tf.shape(x)[0]
    out = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        weights = tf.ones([i + 1]) / tf.cast(i + 1, tf.float32)
        out = out.write(i, tf.reduce_sum(weights * x[: i + 1]))
    return out.stack()


if __name__ == "__main__":
    print(cumulative_mean(tf.constant([1.0, 3.0, 2.0, 6.0])).numpy())
