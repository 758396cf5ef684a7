# source: https://github.com/google-research/scenic/issues/709
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 20 JIT101 the module attribute `rate` was computed with jnp inside the jitted initializer, so it is a tracer
"""A stochastic-depth block whose drop rate is derived from the layer depth
inside the jitted model initialisation."""
import flax.linen as nn
import jax
import jax.numpy as jnp


class DropPathBlock(nn.Module):
    features: int
    rate: float

    @nn.compact
    def __call__(self, x, deterministic=False):
        y = nn.Dense(self.features)(x)
        if self.rate == 0.0 or deterministic:
            return x + y
        keep = jax.random.bernoulli(self.make_rng("dropout"), 1.0 - self.rate, (x.shape[0], 1))
        return x + jnp.where(keep, y / (1.0 - self.rate), 0.0)


@jax.jit
def initialize_model(rng, x, layer_index):
    rate = jnp.minimum(0.05 * layer_index, 0.3)
    block = DropPathBlock(features=x.shape[-1], rate=rate)
    return block.init({"params": rng, "dropout": rng}, x)


variables = initialize_model(jax.random.PRNGKey(0), jnp.ones((2, 4)), 3)
print(jax.tree_util.tree_map(jnp.shape, variables))
