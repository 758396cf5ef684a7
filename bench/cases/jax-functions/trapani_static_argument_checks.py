# source: https://github.com/astro-informatics/s2fft/pull/363
# framework: jax
# shape: function
# expect: ok
"""Argument checks kept only where they can run at trace time: the band limit
`L` is a static argument and the array's shape is static, so `if`/`raise` on
them works under `jax.jit`; the traced `el` is left unchecked (the fix in the
report)."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(2,))
def recursion_step(dl, el, L):
    if L <= 0:
        raise ValueError("band limit L must be positive")
    if dl.shape != (2 * L - 1, 2 * L - 1):
        raise ValueError("dl must have shape (2L - 1, 2L - 1)")
    assert dl.ndim == 2, "dl must be a matrix"
    return dl * jnp.sqrt(el + 1.0) / L


print(recursion_step(jnp.ones((5, 5)), jnp.asarray(2.0), 3).shape)
