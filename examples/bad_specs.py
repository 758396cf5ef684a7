"""Static argument specs that no longer match the function they decorate."""

from functools import partial

import jax
import jax.numpy as jnp


# `num_steps` was renamed to `steps`; the spec was not.
@partial(jax.jit, static_argnames=("num_steps",))
def integrate(state, dt, steps):
    for _ in range(steps):
        state = state + dt * jnp.sin(state)
    return state


def rollout(state):
    scan_fn = jax.jit(lambda s, n: s * n, static_argnums=(1, 2))
    return scan_fn(state, 3)
