"""A transformer-style encoder as haiku modules: a stack of identical residual blocks, run in
a compiled loop to keep the traced program small."""

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
        def body(i, h):
            return self.blocks[i](h)

        return jax.lax.fori_loop(0, len(self.blocks), body, x)


def encode(x: jax.Array) -> jax.Array:
    return Encoder(8, 3)(x)
