# source: https://rules.sonarsource.com/python/rspec-6928
# framework: tf
# shape: function
# expect: ok
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
    tf.print("in-graph loss:", loss)
    return loss


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 2)), tf.float32)
    y = tf.constant(rng.normal(size=(8, 1)), tf.float32)
    history = []
    for step in range(3):
        loss = train_step(x, y)
        history.append(float(loss))
        print("step", step, "loss", loss.numpy())
    print(history)


if __name__ == "__main__":
    main()
