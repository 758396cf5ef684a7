# source: https://github.com/google-research/e3x/issues/24
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: rotations.py:24 JIT101 the range check on `perturbation`, which the user's jit passes as a traced value
"""The user's script (excluded from linting by jitlint.toml): an augmentation whose strength is
an argument of the jitted function."""
import jax

from .rotations import random_rotation

augment = jax.jit(random_rotation)
print(augment(jax.random.PRNGKey(0), 0.25).shape)
