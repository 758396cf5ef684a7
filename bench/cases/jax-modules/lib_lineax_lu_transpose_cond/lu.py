"""The same LU solver after the fix: the transpose flag may be traced, so the solve picks its
branch with `lax.cond` instead of a Python conditional."""

import equinox as eqx
import jax
import jax.scipy as jsp
from jaxtyping import Array

LUState = tuple[tuple[Array, Array], bool]


class LU(eqx.Module):
    def init(self, matrix: Array) -> LUState:
        return jsp.linalg.lu_factor(matrix), False

    def compute(self, state: LUState, vector: Array) -> Array:
        factors, transpose = state
        return jax.lax.cond(
            transpose,
            lambda: jsp.linalg.lu_solve(factors, vector, trans=1),
            lambda: jsp.linalg.lu_solve(factors, vector, trans=0),
        )

    def transpose(self, state: LUState) -> LUState:
        factors, transpose = state
        return factors, not transpose
