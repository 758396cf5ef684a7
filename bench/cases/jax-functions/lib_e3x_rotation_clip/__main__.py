# source: https://github.com/google-research/e3x/issues/24
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml): the augmentation strength is a
traced argument, and the fixed function clips it."""
import jax

from .rotations import random_rotation

augment = jax.jit(random_rotation)
print(augment(jax.random.PRNGKey(0), 0.25).shape)
