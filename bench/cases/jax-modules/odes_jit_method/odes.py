"""Right-hand sides of small ODE systems."""
import jax.numpy as jnp
from jax import jit


class Pendulum:
    def __init__(self, length=1.0, gravity=9.81):
        self.length = length
        self.gravity = gravity
        print("odes module initialised")

    @jit
    def rhs(self, t, q):
        return jnp.array([q[1], -(self.gravity / self.length) * jnp.sin(q[0])])
