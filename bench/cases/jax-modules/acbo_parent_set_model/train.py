"""Loss and jitted update for the parent-set predictor."""
import haiku as hk
import jax
import jax.numpy as jnp
import optax

from .model import ParentSetPredictor

VARIABLES = ("X", "Y", "Z")
CANDIDATES = (frozenset(), frozenset({"X"}), frozenset({"Y"}), frozenset({"X", "Y"}))


def _forward(data):
    scores, _ = ParentSetPredictor(hidden=8)(data, list(VARIABLES), "Z", list(CANDIDATES))
    return scores


network = hk.transform(_forward)
optimizer = optax.adam(1e-2)


@jax.jit
def update(params, opt_state, key, data, expert_probs):
    def loss_fn(p):
        logits = network.apply(p, key, data)
        return -jnp.sum(expert_probs * jax.nn.log_softmax(logits))

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optimizer.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss
