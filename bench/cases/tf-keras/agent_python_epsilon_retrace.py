# source: https://github.com/keiohta/tf2rl/issues/99
# framework: tf
# shape: class
# expect: observed traces=5
# hazard: 28 JIT207 a decaying Python float `epsilon` is passed to the tf.function method _get_action_body on every step: one trace per distinct value
import numpy as np
import tensorflow as tf


class EpsilonGreedyAgent(tf.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.q = tf.keras.Sequential([
            tf.keras.Input((obs_dim,)),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(n_actions),
        ])
        self.n_actions = n_actions

    @tf.function
    def _get_action_body(self, obs, epsilon):
        greedy = tf.argmax(self.q(obs), axis=-1, output_type=tf.int32)
        rand = tf.random.uniform(tf.shape(greedy), 0, self.n_actions, dtype=tf.int32)
        explore = tf.random.uniform(tf.shape(greedy)) < epsilon
        return tf.where(explore, rand, greedy)

    def get_action(self, obs, epsilon):
        return self._get_action_body(tf.constant(obs, tf.float32), epsilon)


def main():
    agent = EpsilonGreedyAgent(4, 3)
    obs = np.random.default_rng(0).normal(size=(1, 4))
    epsilon = 1.0
    for _ in range(5):
        agent.get_action(obs, epsilon)
        epsilon *= 0.9
    print(f"observed: traces={agent._get_action_body.experimental_get_tracing_count()}")


if __name__ == "__main__":
    main()
