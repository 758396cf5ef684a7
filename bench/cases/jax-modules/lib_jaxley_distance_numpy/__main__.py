# source: https://github.com/jaxleyverse/jaxley/pull/603
# framework: jax
# shape: multi-file
# expect: error TracerArrayConversionError
# hazard: morphology.py:16 JIT104 `np.sqrt` converts its argument to a NumPy array; with positions traced by the user's jit, that argument is a tracer (`np.sum` only dispatches to the tracer's method)
"""The user's fitting script (excluded from linting by jitlint.toml): the compartment's
position is an argument of the jitted loss."""
import jax
import jax.numpy as jnp

from .morphology import Compartment

soma = Compartment(jnp.zeros(3))


@jax.jit
def loss(position):
    return (Compartment(position).distance(soma) - 5.0) ** 2


print(loss(jnp.array([3.0, 4.0, 0.0])))
