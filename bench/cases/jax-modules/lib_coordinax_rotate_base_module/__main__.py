# source: https://github.com/GalacticDynamics/coordinax/pull/974
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: rotate.py:18 JIT101 `groups()` branches on the determinant of the rotation matrix, a field of an equinox module whose base class lives in another module; traced when the user's jit builds the operator from its argument
"""The user's script (excluded from linting by jitlint.toml): a rotation built from a
jitted function's argument asks for its groups, as in the review's repro."""
import jax
import jax.numpy as jnp

from .rotate import SPECIAL_ORTHOGONAL, Rotate


@jax.jit
def round_trip(R, x):
    op = Rotate(R)
    inverse = op.inverse if SPECIAL_ORTHOGONAL in op.groups() else Rotate(jnp.linalg.inv(R))
    return inverse(op(x))


angle = 0.3
R = jnp.array(
    [[jnp.cos(angle), -jnp.sin(angle), 0.0], [jnp.sin(angle), jnp.cos(angle), 0.0], [0, 0, 1.0]]
)
print(round_trip(R, jnp.array([1.0, 0.0, 0.0])))
