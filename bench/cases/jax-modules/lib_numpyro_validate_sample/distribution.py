"""A distribution base class in the style of a probabilistic-programming library, with optional
validation of the values passed to `log_prob`. The check skips tracers, so that validation
stays out of the user's compiled model."""

import warnings

import jax
import jax.numpy as jnp


def not_jax_tracer(x):
    return not isinstance(x, jax.core.Tracer)


class Distribution:
    def __init__(self, validate_args=False):
        self._validate_args = validate_args

    def support(self, value):
        raise NotImplementedError

    def _validate_sample(self, value):
        mask = self.support(value)
        if not_jax_tracer(mask):
            if not jnp.all(mask):
                warnings.warn("Out-of-support values provided to log_prob.", stacklevel=3)
        return mask


class Exponential(Distribution):
    def __init__(self, rate, validate_args=False):
        self.rate = rate
        super().__init__(validate_args)

    def support(self, value):
        return value >= 0

    def log_prob(self, value):
        log_prob = jnp.log(self.rate) - self.rate * value
        if self._validate_args:
            mask = self._validate_sample(value)
            log_prob = jnp.where(mask, log_prob, -jnp.inf)
        return log_prob
