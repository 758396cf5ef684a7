# source: https://github.com/patrick-kidger/lineax/pull/188
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml): the state, flag included, is an
argument of the jitted solve, and the fixed solver branches with `lax.cond`."""
import jax
import jax.numpy as jnp

from .lu import LU

matrix = jnp.array([[4.0, 1.0], [2.0, 3.0]])
vector = jnp.array([1.0, 2.0])
solver = LU()
state = solver.init(matrix)
solve = jax.jit(solver.compute)
print(solve(state, vector))
print(solve(solver.transpose(state), vector))
