# source: https://github.com/jax-ml/jax/issues/17158
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 16 JIT111 static_argnums=(1,) on a method leaves `self` (index 0) traced: a plain object is not a JAX type
# hazard: 25 JIT110 index 1 of the method is `signal`, so a JAX array is passed to the static parameter
"""The flag was meant to be static, but in a method index 1 is the first
argument after self, not the flag."""
from functools import partial

import jax
import jax.numpy as jnp


class Rectifier:
    @partial(jax.jit, static_argnums=(1,))
    def apply(self, signal, flip):
        if flip:
            return -signal
        return signal


rect = Rectifier()
sig = jnp.array([1.0, -2.0, 3.0])
out = rect.apply(sig, True)
print(out)
