# source: https://github.com/pyro-ppl/numpyro/pull/775
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml): concrete observed data under a
jitted log density, with validation on."""
import jax
import numpy as np

from .distribution import Exponential

observed = np.array([0.5, 1.5, 2.0], dtype=np.float32)


@jax.jit
def log_density(rate):
    return Exponential(rate, validate_args=True).log_prob(observed).sum()


print(log_density(2.0))
