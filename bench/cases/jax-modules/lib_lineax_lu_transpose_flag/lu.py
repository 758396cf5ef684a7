"""A dense LU solver written as library code: `init` factors the operator once and `compute`
solves with the stored factors. The state also records, as a Python bool, whether the factors
belong to the transposed operator, so that `transpose` is free."""

import equinox as eqx
import jax.scipy as jsp
from jaxtyping import Array

LUState = tuple[tuple[Array, Array], bool]


class LU(eqx.Module):
    def init(self, matrix: Array) -> LUState:
        return jsp.linalg.lu_factor(matrix), False

    def compute(self, state: LUState, vector: Array) -> Array:
        factors, transpose = state
        trans = 1 if transpose else 0
        return jsp.linalg.lu_solve(factors, vector, trans=trans)

    def transpose(self, state: LUState) -> LUState:
        factors, transpose = state
        return factors, not transpose
