# source: https://github.com/N3PDF/vegasflow/issues/84
# framework: tf
# shape: function
# expect: ok
import numpy as np
import tensorflow as tf


def make_train_step(model, optimizer):
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return tf.function(train_step)


def main():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.05)
    step = make_train_step(model, optimizer)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(16, 3)), tf.float32)
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    for epoch in range(5):
        loss = step(x, y)
    print("final loss", float(loss), "traces", step.experimental_get_tracing_count())


if __name__ == "__main__":
    main()
