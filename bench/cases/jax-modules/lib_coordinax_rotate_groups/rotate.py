"""A rotation operator as an equinox module, in the style of a coordinates library. Operators
report the transformation groups they belong to, which composition uses to simplify."""

import equinox as eqx
import jax
import jax.numpy as jnp

SPECIAL_ORTHOGONAL = "SO(n)"
ORTHOGONAL = "O(n)"
DIFFEOMORPHISM = "Diff"


class Rotate(eqx.Module):
    R: jax.Array

    def groups(self) -> frozenset[str]:
        if jnp.linalg.det(self.R) > 0:
            return frozenset({SPECIAL_ORTHOGONAL, DIFFEOMORPHISM})
        return frozenset({ORTHOGONAL, DIFFEOMORPHISM})

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.R @ x

    @property
    def inverse(self) -> "Rotate":
        return Rotate(jnp.swapaxes(self.R, -2, -1))

