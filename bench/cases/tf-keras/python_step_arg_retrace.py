# source: https://github.com/tensorflow/tensorboard/issues/6219
# framework: tf
# shape: function
# expect: observed traces=6
# hazard: 18 JIT207 the Python int loop variable `step` is passed to the tf.function `f`: every new value triggers a retrace
import tensorflow as tf


@tf.function
def f(x, step):
    scale = tf.cast(step, tf.float32) + 1.0
    return tf.reduce_sum(x * scale)


def main():
    x = tf.ones([3])
    for step in range(6):
        print(float(f(x, step)))
    print(f"observed: traces={f.experimental_get_tracing_count()}")


if __name__ == "__main__":
    main()
