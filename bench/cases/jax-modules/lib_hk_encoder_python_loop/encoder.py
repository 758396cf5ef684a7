"""The encoder with a Python loop over its blocks instead: the loop unrolls at trace time, and
each block keeps its own parameters (a compiled loop cannot pick them by a traced index)."""

import haiku as hk
import jax


class EncoderBlock(hk.Module):
    def __init__(self, width: int, name: str | None = None):
        super().__init__(name=name)
        self.width = width

    def __call__(self, x: jax.Array) -> jax.Array:
        return x + jax.nn.gelu(hk.Linear(self.width)(x))


class Encoder(hk.Module):
    def __init__(self, width: int, num_blocks: int, name: str | None = None):
        super().__init__(name=name)
        self.blocks = [EncoderBlock(width, name=f"block_{k}") for k in range(num_blocks)]

    def __call__(self, x: jax.Array) -> jax.Array:
        for block in self.blocks:
            x = block(x)
        return x


def encode(x: jax.Array) -> jax.Array:
    return Encoder(8, 3)(x)
