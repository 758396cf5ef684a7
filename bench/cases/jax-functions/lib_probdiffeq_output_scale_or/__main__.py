# source: https://github.com/pnkraemer/probdiffeq/pull/813
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: filters.py:9 JIT101 `or` converts the output scale to a bool, and the user's jit passes it traced
"""The user's script (excluded from linting by jitlint.toml): a calibrated output scale is an
argument of the jitted solve."""
import jax
import jax.numpy as jnp

from .filters import init, predict


@jax.jit
def one_step(y0, output_scale):
    mean, cov = init([y0, -y0], output_scale=output_scale)
    return predict(mean, cov, 0.1)


print(one_step(jnp.array(1.0), jnp.array(2.0)))
