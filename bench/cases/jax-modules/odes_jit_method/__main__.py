# source: https://github.com/jax-ml/jax/issues/1251
# framework: jax
# shape: multi-file
# expect: error TypeError
# hazard: odes.py:12 JIT111 `@jit` on a method of a plain class: `self` becomes a traced argument when `ode.rhs(...)` is called
"""Computes the Jacobian of a pendulum ODE defined in another module."""
import jax.numpy as jnp
from jax import jacfwd

from .odes import Pendulum


def main():
    ode = Pendulum()
    jac = jacfwd(ode.rhs, argnums=1)
    q = jnp.ones(2)
    print(jac(0.0, q))


main()
