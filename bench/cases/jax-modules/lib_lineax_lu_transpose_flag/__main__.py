# source: https://github.com/patrick-kidger/lineax/issues/187
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: lu.py:18 JIT101 the state's `transpose` flag crosses the caller's jit boundary with the factors, so it is a traced bool when `compute` branches on it
"""The user's script (not linted: jitlint.toml excludes it, as the library author's run would
not see it). The solver state goes through jit as an argument, as lineax's state goes through
its primitive since jax 0.8.2, and its bool with it."""
import jax
import jax.numpy as jnp

from .lu import LU

matrix = jnp.array([[4.0, 1.0], [2.0, 3.0]])
vector = jnp.array([1.0, 2.0])
solver = LU()
state = solver.init(matrix)
solve = jax.jit(solver.compute)
print(solve(state, vector))
