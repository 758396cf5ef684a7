# source: https://rules.sonarsource.com/python/rspec-6928
# framework: tf
# shape: function
# expect: observed prints=1
# hazard: 22 JIT208 Python `print` inside a tf.function runs only while tracing, not on each of the 5 steps
import contextlib
import io

import numpy as np
import tensorflow as tf

w = tf.Variable([[0.5], [-0.5]])
opt = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    grads = tape.gradient(loss, [w])
    opt.apply_gradients(zip(grads, [w]))
    print("step done, loss =", loss)
    return loss


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 2)), tf.float32)
    y = tf.constant(rng.normal(size=(8, 1)), tf.float32)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for _ in range(5):
            train_step(x, y)
    print(buf.getvalue(), end="")
    print(f"observed: prints={buf.getvalue().count('step done')}")


if __name__ == "__main__":
    main()
