# source: https://github.com/astro-informatics/s2fft/issues/273
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: trapani.py:16 JIT101 `el` is not static in the jitted step, so the range assertion converts a traced comparison to a bool
"""The user's loop (excluded from linting by jitlint.toml): the degree advances one step at a
time through the jitted recursion."""
import jax.numpy as jnp

from .trapani import compute_el_step

L = 4
dl = jnp.eye(2 * L - 1)
for el in range(1, L):
    dl = compute_el_step(dl, L, el)
print(dl.sum())
