"""Temporal synthesis processor with a jitted entry point."""
import functools

import equinox as eqx
import jax
import jax.numpy as jnp

from .core import ProcessorBase


class TemporalMoment(eqx.Module):
    timestamp: jax.Array
    present: jax.Array
    retention: jax.Array


class TemporalSynthesis(ProcessorBase):
    retention_memory: jax.Array
    mixing: jax.Array

    def __init__(self, state_dim, depth, key):
        self.state_dim = state_dim
        self.retention_memory = jnp.zeros((depth, state_dim))
        self.mixing = jax.random.normal(key, (state_dim, state_dim)) * 0.1

    def _synthesis_impl(self, impression, timestamp):
        impression = self._validate_input(impression)
        retained = self.retention_memory.mean(axis=0)
        present = jnp.tanh(self.mixing @ impression + retained)
        return TemporalMoment(timestamp=jnp.asarray(timestamp), present=present, retention=retained)

    @functools.partial(jax.jit, static_argnames=["self"])
    def temporal_synthesis_jit(self, impression, timestamp=None):
        ts = timestamp or 0.0
        return self._synthesis_impl(impression, ts)
