"""A tiny NeRF-style MLP in flax linen."""
import flax.linen as nn
import jax.numpy as jnp


class TinyNeRF(nn.Module):
    width: int = 32

    @nn.compact
    def __call__(self, points):
        h = nn.relu(nn.Dense(self.width)(points))
        h = nn.relu(nn.Dense(self.width)(h))
        out = nn.Dense(4)(h)
        rgb = nn.sigmoid(out[..., :3])
        sigma = nn.relu(out[..., 3])
        return rgb, sigma
