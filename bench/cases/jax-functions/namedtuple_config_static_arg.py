# source: https://github.com/nissymori/JAX-CORL/pull/59
# framework: jax
# shape: function
# expect: ok

# A hashable NamedTuple config marked static: its int and float fields are
# Python values inside jit, usable in range(), shapes and Python branches.
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Config(NamedTuple):
    hidden_dims: tuple = (8, 8)
    n_critics: int = 2
    discount: float = 0.99
    use_layer_norm: bool = False


@partial(jax.jit, static_argnums=(0,))
def init_critics(config, key):
    keys = jax.random.split(key, config.n_critics)
    critics = []
    for i in range(config.n_critics):
        dims = (4,) + config.hidden_dims + (1,)
        ws = [jax.random.normal(keys[i], (a, b)) for a, b in zip(dims[:-1], dims[1:])]
        if config.use_layer_norm:
            ws = [w / jnp.linalg.norm(w) for w in ws]
        critics.append(ws)
    return critics, jnp.full((config.n_critics,), config.discount)


if __name__ == "__main__":
    critics, disc = init_critics(Config(), jax.random.PRNGKey(0))
    print(len(critics), [w.shape for w in critics[0]], disc)
