# source: https://github.com/PennyLaneAI/pennylane/issues/6640
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: observables.py:17 JIT101 the Hermitian check converts `jnp.allclose` of a matrix built from the user's traced parameters
"""The user's circuit (excluded from linting by jitlint.toml): the observable's matrix depends
on the jitted function's argument, as in the report."""
import jax
import jax.numpy as jnp

from .observables import Hermitian

state = jnp.array([1.0, 1.0]) / jnp.sqrt(2.0)


@jax.jit
def circuit(y):
    matrix = jnp.array([[y[0], y[1]], [y[1], -y[0]]])
    return Hermitian(matrix, wires=[1]).expval(state)


print(circuit(jnp.array([0.123, 0.25])))
