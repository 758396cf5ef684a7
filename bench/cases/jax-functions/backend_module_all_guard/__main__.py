# source: https://github.com/wesselb/stheno/issues/21
# source: https://github.com/realquantumcookie/xbarray/blob/main/xbarray/_src/implementations/jax/__init__.py
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: likelihood.py:9 JIT101 `if not B.all(...)` converts a traced array to a Python bool; `B` is jax.numpy, re-exported by the backend module's `from jax.numpy import *`
"""The user's script: the gradient of the log-density in a length scale, jitted, as in the
report."""
import jax
import jax.numpy as jnp

from .likelihood import logpdf


def loss(lengthscale, y):
    mean = jnp.zeros_like(y)
    var = jnp.full_like(y, lengthscale**2)
    return -logpdf(mean, var, y)


grad_fn = jax.jit(jax.grad(loss))
print(grad_fn(jnp.float32(1.0), jnp.array([0.5, jnp.nan, -0.2])))
