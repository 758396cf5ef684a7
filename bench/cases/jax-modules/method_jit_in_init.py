# source: https://github.com/jax-ml/jax/issues/9672
# framework: jax
# shape: class
# expect: ok
"""The recommended pattern: jit the bound method once, in the constructor."""
import jax
import jax.numpy as jnp


class Integrator:
    def __init__(self, dt):
        self.dt = dt
        self.step = jax.jit(self.step)

    def step(self, x, v):
        a = -x
        v = v + self.dt * a
        return x + self.dt * v, v


integ = Integrator(0.1)
x, v = jnp.ones(3), jnp.zeros(3)
for _ in range(5):
    x, v = integ.step(x, v)
print(x, v)
