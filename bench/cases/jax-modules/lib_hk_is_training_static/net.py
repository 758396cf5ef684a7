"""A haiku network with batch norm and dropout, switched by `is_training`, which the caller
keeps a Python bool."""

import haiku as hk
import jax


class Net(hk.Module):
    def __init__(self, output_size: int = 1):
        super().__init__()
        self.hidden = hk.Linear(16)
        self.norm = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)
        self.out = hk.Linear(output_size)

    def __call__(self, x: jax.Array, is_training: bool) -> jax.Array:
        x = jax.nn.relu(self.norm(self.hidden(x), is_training=is_training))
        if is_training:
            x = hk.dropout(hk.next_rng_key(), 0.1, x)
        return self.out(x)


def forward(x: jax.Array, is_training: bool) -> jax.Array:
    return Net(1)(x, is_training)
