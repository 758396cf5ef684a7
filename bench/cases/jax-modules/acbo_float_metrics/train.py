"""Factory for the jitted training step with logged metrics."""
import jax
import jax.numpy as jnp
import optax


def kl_divergence_loss(pred_logits, expert_probs):
    log_q = jax.nn.log_softmax(pred_logits)
    log_p = jnp.log(jnp.clip(expert_probs, 1e-8, 1.0))
    return jnp.sum(expert_probs * (log_p - log_q))


def create_train_step(network, learning_rate=1e-2):
    optimizer = optax.adam(learning_rate)

    def loss_fn(params, data, expert_probs):
        logits = network.apply(params, data)
        loss = kl_divergence_loss(logits, expert_probs)
        return loss, {"kl": loss, "entropy": -jnp.sum(jax.nn.softmax(logits) * jax.nn.log_softmax(logits))}

    def train_step(params, opt_state, data, expert_probs):
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, data, expert_probs)
        updates, opt_state = optimizer.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
        grad_norm = optax.global_norm(grads)
        metrics = {
            "total_loss": float(loss),
            "kl_loss": float(aux["kl"]),
            "entropy": float(aux["entropy"]),
            "grad_norm": float(grad_norm),
        }
        return params, opt_state, metrics

    return jax.jit(train_step), optimizer
