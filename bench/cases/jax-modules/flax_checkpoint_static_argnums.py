# source: https://github.com/google/flax/issues/3630
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 18 JIT101 the lifted `nn.checkpoint` counts the module as argument 0, so `static_argnums=(1,)` marks `x` static and leaves `deterministic` traced
"""A residual block wrapped in nn.checkpoint with a boolean control flag."""
import flax.linen as nn
import jax
import jax.numpy as jnp


class MLPBlock(nn.Module):
    width: int

    @nn.compact
    def __call__(self, x, deterministic):
        h = nn.gelu(nn.Dense(self.width)(x))
        if not deterministic:
            h = nn.Dropout(0.1)(h, deterministic=False)
        return x + nn.Dense(x.shape[-1])(h)


class Encoder(nn.Module):
    depth: int = 2

    @nn.compact
    def __call__(self, x, deterministic):
        RematBlock = nn.checkpoint(MLPBlock, static_argnums=(1,))
        for _ in range(self.depth):
            x = RematBlock(width=8)(x, deterministic)
        return x


model = Encoder()
rngs = {"params": jax.random.PRNGKey(0), "dropout": jax.random.PRNGKey(1)}
variables = model.init(rngs, jnp.ones((2, 4)), True)
print(jax.tree_util.tree_map(jnp.shape, variables))
