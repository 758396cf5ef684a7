# source: https://github.com/aesara-devs/aesara/issues/1158
# framework: jax
# shape: multi-file
# expect: error ConcretizationTypeError
# hazard: pool.py:22 JIT113 a jitted helper is defined inside `__call__`, so it is re-created (and compiled) on every call
# hazard: pool.py:26 JIT102 `.item()` of the task id, a traced argument when the user jits `apply`
"""The user's script (excluded from linting by jitlint.toml): the module is applied under
jax.jit with the task id as an array argument."""
import jax
import jax.numpy as jnp

from .pool import PromptPool

pool = PromptPool(size=3)
images = jnp.ones((2, 8, 8, 3))
variables = pool.init(jax.random.PRNGKey(0), images, jnp.array(0))
apply = jax.jit(pool.apply)
print(apply(variables, images, jnp.array(2)).shape)
