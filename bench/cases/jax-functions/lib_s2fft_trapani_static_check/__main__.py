# source: https://github.com/astro-informatics/s2fft/pull/363
# framework: jax
# shape: multi-file
# expect: ok
"""The user's loop (excluded from linting by jitlint.toml), through the fixed step."""
import jax.numpy as jnp

from .trapani import compute_el_step

L = 4
dl = jnp.eye(2 * L - 1)
for el in range(1, L):
    dl = compute_el_step(dl, L, el)
print(dl.sum())
