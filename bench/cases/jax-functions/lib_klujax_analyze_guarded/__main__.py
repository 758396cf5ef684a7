# source: https://github.com/gdsfactory/klujax/pull/33
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml): the jitted Newton step, and one
eager call that gets a concrete handle."""
import jax
import jax.numpy as jnp

from .klu import analyze, solve

Ai = jnp.array([0, 1, 1])
Aj = jnp.array([0, 0, 1])


@jax.jit
def newton_step(Ax, b):
    x, _ = solve(Ai, Aj, Ax, b)
    return x


print(newton_step(jnp.array([2.0, 1.0, 3.0]), jnp.array([1.0, 1.0])))
print(analyze(Ai, Aj, 2).handle)
