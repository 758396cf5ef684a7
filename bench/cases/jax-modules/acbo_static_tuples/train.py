"""Factory for the jitted surrogate training step (metadata static)."""
import jax
import jax.numpy as jnp
import optax


def init_params(key, n_vars, n_candidates, hidden=16):
    k1, k2 = jax.random.split(key)
    return {
        "w_in": 0.1 * jax.random.normal(k1, (n_vars, hidden)),
        "w_out": 0.1 * jax.random.normal(k2, (hidden, n_candidates)),
    }


def make_train_step(learning_rate=1e-2):
    optimizer = optax.adam(learning_rate)

    def train_step(params, opt_state, batch, metadata):
        batch_size, n_samples, n_vars = batch.observations.shape
        if n_vars != len(metadata.variable_order):
            raise ValueError("observation width does not match the variable order")
        target_col = metadata.variable_order.index(metadata.target)
        mask = jnp.ones(n_vars).at[target_col].set(0.0)

        def loss_fn(p):
            h = jnp.tanh((batch.observations * mask).mean(axis=1) @ p["w_in"])
            logp = jax.nn.log_softmax(h @ p["w_out"], axis=-1)
            return -jnp.sum(batch.expert_probs * logp) / batch_size

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = optimizer.update(grads, opt_state)
        metrics = {"loss": loss, "n_candidates": len(metadata.parent_sets)}
        return optax.apply_updates(params, updates), opt_state, metrics

    return jax.jit(train_step, static_argnames=("metadata",)), optimizer
