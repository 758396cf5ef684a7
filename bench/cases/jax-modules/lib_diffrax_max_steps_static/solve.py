"""A fixed-step ODE solve in the style of a differential-equations library. The entry point is
compiled with `eqx.filter_jit`, which keeps Python ints and callables static: `max_steps` sizes
the loop and may be branched on."""

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def diffeqsolve(
    vector_field: Callable,
    t0: float,
    t1: float,
    y0: jax.Array,
    max_steps: int | None = 4096,
) -> jax.Array:
    if max_steps is None:
        raise ValueError("an unbounded solve needs an adaptive controller")
    if max_steps < 1:
        raise ValueError("`max_steps` must be at least 1")
    dt = (t1 - t0) / max_steps
    if max_steps == 1:
        return y0 + dt * vector_field(t0, y0)

    def step(i, y):
        return y + dt * vector_field(t0 + i * dt, y)

    return jax.lax.fori_loop(0, max_steps, step, y0)
