# source: https://github.com/patrick-kidger/equinox/issues/681
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 23 JIT101 `rate` is a float field, kept on the traced side by `eqx.is_array_like`, so the `if` converts a tracer to bool
"""A custom dropout block; training code splits the model with eqx.is_array_like
and passes the parameters through a plain jax.jit."""
import equinox as eqx
import jax
import jax.numpy as jnp


class NoisyBlock(eqx.Module):
    linear: eqx.nn.Linear
    rate: float

    def __init__(self, key, rate=0.1):
        self.linear = eqx.nn.Linear(4, 4, key=key)
        self.rate = rate

    def __call__(self, x, key):
        x = jax.nn.relu(self.linear(x))
        if self.rate > 0:
            keep = jax.random.bernoulli(key, 1.0 - self.rate, x.shape)
            x = jnp.where(keep, x / (1.0 - self.rate), 0.0)
        return x


@jax.jit
def forward(params, static, x, key):
    block = eqx.combine(params, static)
    return block(x, key)


block = NoisyBlock(jax.random.PRNGKey(0))
params, static = eqx.partition(block, eqx.is_array_like)
print(forward(params, static, jnp.ones(4), jax.random.PRNGKey(1)))
