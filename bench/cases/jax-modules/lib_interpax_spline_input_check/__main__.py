# source: https://github.com/f0uriest/interpax/issues/96
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: spline.py:21 JIT101 `not` on `jnp.all(...)` of the traced knots, when the user jits the constructor
# hazard: spline.py:10 JIT101 `errorif` branches on its condition, which the monotonicity check passes as a traced `jnp.any(...)`
"""The user's script (excluded from linting by jitlint.toml): the spline's constructor is
jitted, as in the report."""
import jax
import jax.numpy as jnp

from .spline import CubicSpline

x = jnp.array([0.0, 1.0, 2.0, 3.0])
y = x**2
spline = jax.jit(CubicSpline)(x, y)
print(spline(jnp.array([0.5, 2.5])))
