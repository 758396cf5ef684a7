"""The start of a probabilistic ODE solve, after the fix: the default output scale is chosen
with `is None`, which asks nothing of a traced scale."""

import jax.numpy as jnp


def init(tcoeffs, output_scale=None):
    if output_scale is None:
        output_scale = jnp.ones(())
    mean = jnp.stack(tcoeffs)
    cov = output_scale**2 * jnp.eye(len(tcoeffs))
    return mean, cov


def predict(mean, cov, dt):
    n = mean.shape[0]
    transition = jnp.eye(n) + dt * jnp.eye(n, k=1)
    return transition @ mean, transition @ cov @ transition.T
