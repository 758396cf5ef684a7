"""The start of a probabilistic ODE solve in the style of a filtering library: the state is a
Gaussian over the Taylor coefficients, and the output scale sets its prior spread (one unless
the caller calibrated another)."""

import jax.numpy as jnp


def init(tcoeffs, output_scale=None):
    output_scale = output_scale or jnp.ones(())
    mean = jnp.stack(tcoeffs)
    cov = output_scale**2 * jnp.eye(len(tcoeffs))
    return mean, cov


def predict(mean, cov, dt):
    n = mean.shape[0]
    transition = jnp.eye(n) + dt * jnp.eye(n, k=1)
    return transition @ mean, transition @ cov @ transition.T
