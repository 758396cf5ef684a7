"""Loss and the jitted training step."""
import jax
import jax.numpy as jnp
import optax

from .model import DNN

model = DNN(num_hidden_units1=16, num_hidden_units2=8, num_outputs=1, dropout_rate=0.1)
optimizer = optax.adam(1e-3)


def mse(params, X, y, training, key):
    def squared_error(x, t):
        pred = model.apply(params, x, training, rngs={"dropout": key})
        diff = pred - t
        return jnp.inner(diff, diff)

    return jnp.mean(jax.vmap(squared_error)(X, y), axis=0)


@jax.jit
def train_step(params, opt_state, X, y, training, key):
    loss, grads = jax.value_and_grad(mse)(params, X, y, training, key)
    updates, opt_state = optimizer.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss
