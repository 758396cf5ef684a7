# source: https://github.com/jax-ml/jax/issues/5595
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 16 JIT111 `@jax.jit` directly on a method: `self` (a plain object) is passed as a traced argument
"""A rate model whose predict method was decorated with jax.jit directly."""
import jax
import jax.numpy as jnp


class RateModel:
    def __init__(self, decay):
        self.decay = decay
        self.offset = jnp.float32(0.5)

    @jax.jit
    def predict(self, t):
        return self.offset + jnp.exp(-self.decay * t)


model = RateModel(decay=0.3)
print(model.predict(jnp.arange(4.0)))
