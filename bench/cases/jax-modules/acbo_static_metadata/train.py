"""Builds the jitted surrogate training step."""
import jax
import jax.numpy as jnp
import optax


def init_params(key, n_vars, n_candidates, hidden):
    k1, k2 = jax.random.split(key)
    return {
        "w_in": 0.1 * jax.random.normal(k1, (n_vars, hidden)),
        "w_out": 0.1 * jax.random.normal(k2, (hidden, n_candidates)),
    }


def _logits(params, observations):
    h = jnp.tanh(observations.mean(axis=0) @ params["w_in"])
    return h @ params["w_out"]


def create_surrogate_train_step(config):
    optimizer = optax.adam(config.learning_rate)

    def train_step(params, opt_state, observations, expert_probs, key,
                   parent_sets, variable_orders, target_variables):
        def loss_fn(p):
            total = 0.0
            for i in range(len(target_variables)):
                logp = jax.nn.log_softmax(_logits(p, observations[i]))
                total = total - jnp.sum(expert_probs[i] * logp)
            l2 = sum(jnp.sum(w ** 2) for w in jax.tree_util.tree_leaves(p))
            return total / len(target_variables) + config.weight_decay * l2

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return jax.jit(train_step, static_argnums=(5, 6, 7)), optimizer
