"""A greedy agent whose action method jits a helper that closes over the agent."""
import jax
import jax.numpy as jnp


class GreedyAgent:
    def __init__(self, weights):
        self.weights = weights

    def net_apply(self, params, obs):
        return obs @ params

    def take_action(self, obs):
        @jax.jit
        def _take_action(params, obs):
            logits = self.net_apply(params, obs)
            probs = jax.nn.softmax(logits)
            top2 = jnp.sort(probs)[-2:]
            return jnp.argmax(logits), top2[1] - top2[0]

        return _take_action(self.weights, obs)
