# source: https://github.com/patrick-kidger/diffrax/issues/379
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml). The report's error came from the
user passing `max_steps` through their own `jax.jit`; called as the library intends, with a
Python int, `filter_jit` keeps it static."""
import jax.numpy as jnp

from .solve import diffeqsolve


def decay(t, y):
    return -y


print(diffeqsolve(decay, 0.0, 1.0, jnp.ones(2), max_steps=100))
print(diffeqsolve(decay, 0.0, 1.0, jnp.ones(2), max_steps=1))
