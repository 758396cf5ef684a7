# source: https://github.com/tensorflow/tensorflow/issues/34715
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


@tf.function
def normalize_probs(p):
    tf.debugging.assert_non_negative(p, message="probabilities must be non-negative")
    tf.debugging.assert_rank(p, 2)
    return p / tf.reduce_sum(p, axis=-1, keepdims=True)


if __name__ == "__main__":
    print(normalize_probs(tf.constant([[0.2, 0.3, 0.1]])).numpy())
