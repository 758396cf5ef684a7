# source: https://github.com/brentyi/egoallo/issues/17
# framework: jax
# shape: multi-file
# expect: error TypeError
# hazard: optimizer.py:13 JIT103 `lm_iters` is an int field of a flax.struct dataclass, a data leaf: traced when the params pytree enters the jitted optimizer
"""Refines a short trajectory with the jitted guidance optimizer."""
import jax
import jax.numpy as jnp

from .optimizer import optimize_trajectory
from .params import GuidanceParams


def main():
    key = jax.random.PRNGKey(0)
    traj = jax.random.normal(key, (6, 3))
    target = jnp.zeros((6, 3))
    params = GuidanceParams.defaults("hands")
    refined, history = optimize_trajectory(traj, target, params)
    print(refined.shape, history)


main()
