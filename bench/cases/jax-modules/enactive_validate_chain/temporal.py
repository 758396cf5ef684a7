"""Temporal synthesis on top of the validating base processor."""
import jax
import jax.numpy as jnp

from .core import ProcessorBase


class TemporalSynthesis(ProcessorBase):
    retention_memory: jax.Array
    mixing: jax.Array

    def __init__(self, state_dim, depth, key):
        self.state_dim = state_dim
        self.retention_memory = jnp.zeros((depth, state_dim))
        self.mixing = jax.random.normal(key, (state_dim, state_dim)) * 0.1

    def __call__(self, impression):
        impression = super().__call__(impression)
        retained = self.retention_memory.mean(axis=0)
        return jnp.tanh(self.mixing @ impression + retained)
