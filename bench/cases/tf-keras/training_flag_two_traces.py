# source: https://github.com/keiohta/tf2rl/issues/99
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class Policy(tf.Module):
    def __init__(self):
        super().__init__()
        self.net = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="tanh"),
                                        tf.keras.layers.Dropout(0.2), tf.keras.layers.Dense(2)])

    @tf.function
    def act(self, obs, training):
        logits = self.net(obs, training=training)
        return tf.argmax(logits, axis=-1)


def main():
    policy = Policy()
    obs = tf.constant(np.random.default_rng(0).normal(size=(3, 4)), tf.float32)
    for _ in range(10):
        policy.act(obs, training=True)
    for _ in range(10):
        policy.act(obs, training=False)
    print("traces:", policy.act.experimental_get_tracing_count())


if __name__ == "__main__":
    main()
