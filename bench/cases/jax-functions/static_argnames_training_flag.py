# source: https://github.com/jax-ml/jax/pull/24705
# framework: jax
# shape: function
# expect: ok

# Flags that select code paths are listed in static_argnames, so the Python
# `if` on them runs at trace time on plain bools and strings.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("training", "activation"))
def mlp(params, x, key, training=False, activation="relu"):
    h = x @ params["w1"]
    h = jax.nn.relu(h) if activation == "relu" else jnp.tanh(h)
    if training:
        keep = jax.random.bernoulli(key, 0.9, h.shape)
        h = jnp.where(keep, h / 0.9, 0.0)
    return h @ params["w2"]


if __name__ == "__main__":
    params = {"w1": jnp.ones((3, 4)), "w2": jnp.ones((4, 2))}
    x = jnp.ones((5, 3))
    key = jax.random.PRNGKey(0)
    print(mlp(params, x, key, training=True).shape)
    print(mlp(params, x, key, training=False, activation="tanh").shape)
