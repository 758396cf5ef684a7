# source: https://github.com/google-deepmind/dm-haiku/issues/187
# framework: jax
# shape: multi-file
# expect: ok
"""The user's training script (excluded from linting by jitlint.toml), after the fix in the
thread: `is_training` is static in every jitted function that takes it."""
from functools import partial

import haiku as hk
import jax
import jax.numpy as jnp

from .net import forward

model = hk.transform_with_state(forward)
x = jnp.ones((8, 4))
y = jnp.zeros((8, 1))
params, state = model.init(jax.random.PRNGKey(0), x, True)


@partial(jax.jit, static_argnums=(5,))
def loss(params, state, rng, x, y, is_training):
    pred, state = model.apply(params, state, rng, x, is_training)
    return jnp.mean((pred - y) ** 2), state


print(loss(params, state, jax.random.PRNGKey(1), x, y, True)[0])
print(loss(params, state, jax.random.PRNGKey(1), x, y, False)[0])
