# source: https://github.com/google/flax/issues/3171
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml): `training` is static in the
jitted forward pass, as flax's dropout guide does."""
from functools import partial

import jax
import jax.numpy as jnp

from .model import MyModel

model = MyModel(num_neurons=3)
x = jnp.ones((4, 2))
params_key, dropout_key = jax.random.split(jax.random.PRNGKey(0))
variables = model.init(params_key, x, training=False)


@partial(jax.jit, static_argnames=("training",))
def forward(variables, x, key, training):
    return model.apply(variables, x, training=training, rngs={"dropout": key})


print(forward(variables, x, dropout_key, training=True).shape)
print(forward(variables, x, dropout_key, training=False).shape)
