"""The rotation operator after the fix: under a trace `groups()` answers conservatively instead
of branching on the traced determinant; eager calls still tell SO(n) from O(n)."""

import equinox as eqx
import jax
import jax.numpy as jnp

SPECIAL_ORTHOGONAL = "SO(n)"
ORTHOGONAL = "O(n)"
DIFFEOMORPHISM = "Diff"


class Rotate(eqx.Module):
    R: jax.Array

    def groups(self) -> frozenset[str]:
        det = jnp.linalg.det(self.R)
        if isinstance(det, jax.core.Tracer):
            # The sign is unknowable while tracing: claim only what holds for either sign.
            return frozenset({ORTHOGONAL, DIFFEOMORPHISM})
        if det > 0:
            return frozenset({SPECIAL_ORTHOGONAL, DIFFEOMORPHISM})
        return frozenset({ORTHOGONAL, DIFFEOMORPHISM})

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.R @ x

    @property
    def inverse(self) -> "Rotate":
        return Rotate(jnp.swapaxes(self.R, -2, -1))

