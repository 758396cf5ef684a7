# source: https://github.com/tensorflow/tensorflow/issues/34715
# framework: tf
# shape: function
# expect: error OperatorNotAllowedInGraphError
# hazard: 11 JIT205 Python `assert` on a tensor inside tf.function: AutoGraph does not convert assert, so bool() is called on a symbolic tensor
import tensorflow as tf


@tf.function
def normalize_probs(p):
    assert tf.reduce_all(p >= 0.0), "probabilities must be non-negative"
    return p / tf.reduce_sum(p, axis=-1, keepdims=True)


if __name__ == "__main__":
    print(normalize_probs(tf.constant([[0.2, 0.3, 0.1]])).numpy())
