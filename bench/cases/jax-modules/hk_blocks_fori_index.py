# source: https://github.com/google-deepmind/dm-haiku/issues/622
# source: https://github.com/jax-ml/jax/issues/16559
# framework: jax
# shape: class
# expect: error TracerIntegerConversionError
# hazard: 29 JIT102 a Python list of modules indexed by the traced fori_loop counter
"""An encoder tries to run its stack of identical blocks in a compiled loop."""
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
        def body(i, h):
            return self.blocks[i](h)

        return jax.lax.fori_loop(0, len(self.blocks), body, x)


model = hk.transform(lambda x: Encoder(8, 3)(x))
x = jnp.ones((2, 8))
params = model.init(jax.random.PRNGKey(0), x)
apply = jax.jit(model.apply)
print(apply(params, None, x).shape)
