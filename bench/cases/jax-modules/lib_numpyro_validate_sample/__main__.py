# source: https://github.com/pyro-ppl/numpyro/issues/771
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: distribution.py:25 JIT101 the observed data is a NumPy array, so `mask` is not a tracer, but `jnp.all` inside the caller's jit stages its result: `not` converts a tracer
"""The user's script (excluded from linting by jitlint.toml): the observed data is closed over
as a NumPy array and the rate is traced, as in a model's log density under jit."""
import jax
import numpy as np

from .distribution import Exponential

observed = np.array([0.5, 1.5, 2.0], dtype=np.float32)


@jax.jit
def log_density(rate):
    return Exponential(rate, validate_args=True).log_prob(observed).sum()


print(log_density(2.0))
