"""A rotation operator. Operators report the transformation groups they belong to, which
composition uses to simplify."""

import jax
import jax.numpy as jnp

from .base import AbstractOperator

SPECIAL_ORTHOGONAL = "SO(n)"
ORTHOGONAL = "O(n)"
DIFFEOMORPHISM = "Diff"


class Rotate(AbstractOperator):
    R: jax.Array

    def groups(self) -> frozenset[str]:
        if jnp.linalg.det(self.R) > 0:
            return frozenset({SPECIAL_ORTHOGONAL, DIFFEOMORPHISM})
        return frozenset({ORTHOGONAL, DIFFEOMORPHISM})

    def apply(self, x: jax.Array) -> jax.Array:
        return self.R @ x

    @property
    def inverse(self) -> "Rotate":
        return Rotate(jnp.swapaxes(self.R, -2, -1))
