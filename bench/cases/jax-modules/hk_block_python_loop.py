# source: https://github.com/google-deepmind/dm-haiku/issues/622
# framework: jax
# shape: class
# expect: ok
"""A haiku encoder iterating over its Python list of blocks; the loop is
unrolled at trace time, so jitting apply is fine."""
import haiku as hk
import jax
import jax.numpy as jnp


class EncoderBlock(hk.Module):
    def __init__(self, width, name=None):
        super().__init__(name=name)
        self.width = width

    def __call__(self, x):
        return x + jax.nn.gelu(hk.Linear(self.width)(x))


class Encoder(hk.Module):
    def __init__(self, width, num_blocks):
        super().__init__()
        self.blocks = [EncoderBlock(width, name=f"block_{k}") for k in range(num_blocks)]

    def __call__(self, x):
        for block in self.blocks:
            x = block(x)
        for i in range(len(self.blocks)):
            x = x * (1.0 + 0.1 * i)
        return x


model = hk.transform(lambda x: Encoder(8, 3)(x))
x = jnp.ones((2, 8))
params = model.init(jax.random.PRNGKey(0), x)
apply = jax.jit(model.apply)
print(apply(params, None, x).shape)
