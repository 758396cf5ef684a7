# source: https://github.com/google-deepmind/open_spiel/issues/1208
# framework: tf
# shape: class
# expect: observed traces=4
# hazard: 23 JIT207 a Python list `legal_actions` is passed to the tf.function method _get_matched_regrets: every distinct list is a new trace
import numpy as np
import tensorflow as tf


class RegretSolver:
    def __init__(self, n_actions=4):
        self.net = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(n_actions)])

    @tf.function
    def _get_matched_regrets(self, info_state, legal_actions):
        advs = self.net(info_state[None])[0]
        legal = tf.gather(advs, legal_actions)
        pos = tf.nn.relu(legal)
        total = tf.reduce_sum(pos)
        return tf.where(total > 0, pos / (total + 1e-9), tf.ones_like(pos) / tf.cast(tf.size(pos), tf.float32))

    def policy(self, info_state, legal_actions):
        return self._get_matched_regrets(tf.constant(info_state, tf.float32), legal_actions)


def main():
    solver = RegretSolver()
    rng = np.random.default_rng(0)
    histories = [[0, 1, 2, 3], [0, 2], [1, 3], [0, 1, 2, 3], [0, 1, 3], [0, 2]]
    for legal in histories:
        solver.policy(rng.normal(size=6), legal)
    print(f"observed: traces={solver._get_matched_regrets.experimental_get_tracing_count()}")


if __name__ == "__main__":
    main()
