"""A small flax model with dropout, switched by a `training` flag that the caller passes as a
Python bool."""

import flax.linen as nn
import jax


class MyModel(nn.Module):
    num_neurons: int

    @nn.compact
    def __call__(self, x: jax.Array, training: bool) -> jax.Array:
        x = nn.Dense(self.num_neurons)(x)
        x = nn.Dropout(rate=0.5, deterministic=not training)(x)
        return x
