# source: https://github.com/jaxleyverse/jaxley/pull/603
# framework: jax
# shape: multi-file
# expect: ok
"""The user's fitting script (excluded from linting by jitlint.toml), through the fixed
distance."""
import jax
import jax.numpy as jnp

from .morphology import Compartment

soma = Compartment(jnp.zeros(3))


@jax.jit
def loss(position):
    return (Compartment(position).distance(soma) - 5.0) ** 2


print(loss(jnp.array([3.0, 4.0, 0.0])))
