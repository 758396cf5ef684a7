# source: https://github.com/gdsfactory/klujax/issues/34
# framework: jax
# shape: multi-file
# expect: error ConcretizationTypeError
# hazard: klu.py:20 JIT102 `int()` of the pattern analysis, which is a tracer when the user's jit traces `solve`
"""The user's script (excluded from linting by jitlint.toml): a circuit model that calls the
sparse solver inside a jitted Newton step, as the report's SAX model did."""
import jax
import jax.numpy as jnp

from .klu import solve

Ai = jnp.array([0, 1, 1])
Aj = jnp.array([0, 0, 1])


@jax.jit
def newton_step(Ax, b):
    x, _ = solve(Ai, Aj, Ax, b)
    return x


print(newton_step(jnp.array([2.0, 1.0, 3.0]), jnp.array([1.0, 1.0])))
