# source: https://github.com/tensorflow/tensorflow/issues/38561
# framework: tf
# shape: function
# expect: ok
import numpy as np
import tensorflow as tf

embed = tf.Variable(tf.random.normal([20, 4], seed=0))


@tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
def encode(tokens):
    vectors = tf.gather(embed, tokens)
    lengths = tf.reduce_sum(tf.cast(tokens > 0, tf.float32), axis=1, keepdims=True)
    return tf.reduce_sum(vectors, axis=1) / tf.maximum(lengths, 1.0)


@tf.function(reduce_retracing=True)
def total_length(tokens):
    return tf.reduce_sum(tf.cast(tokens > 0, tf.int32))


def main():
    rng = np.random.default_rng(0)
    for seq_len in (3, 5, 7, 9, 11):
        batch = rng.integers(0, 20, size=(2, seq_len)).astype("int32")
        encode(batch)
        total_length(tf.constant(batch))
    print("encode traces:", encode.experimental_get_tracing_count(),
          "total_length traces:", total_length.experimental_get_tracing_count())


if __name__ == "__main__":
    main()
