"""A Hermitian observable in the style of a quantum-computing library: the constructor checks
that the matrix it is given is Hermitian before the observable can be measured."""

import jax.numpy as jnp


class Hermitian:
    def __init__(self, A, wires):
        self._validate_input(A)
        self.matrix = A
        self.wires = wires

    @staticmethod
    def _validate_input(A):
        if A.shape[0] != A.shape[1]:
            raise ValueError("Observable must be a square matrix.")
        if not jnp.allclose(A, jnp.conj(A).T):
            raise ValueError("Observable must be Hermitian.")

    def expval(self, state):
        return jnp.real(jnp.vdot(state, self.matrix @ state))
