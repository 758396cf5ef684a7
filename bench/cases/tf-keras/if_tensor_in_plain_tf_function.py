# source: https://TensorFlow.org/versions/r2.11/api_docs/python/tf/function
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


@tf.function
def collatz_steps(n):
    steps = tf.constant(0)
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@tf.function
def clip_norm(x, max_norm):
    norm = tf.norm(x)
    if norm > max_norm:
        x = x * max_norm / norm
    return x


if __name__ == "__main__":
    print(int(collatz_steps(tf.constant(27))))
    print(clip_norm(tf.constant([3.0, 4.0]), tf.constant(1.0)).numpy())
