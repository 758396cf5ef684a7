"""Retention / primal impression / protention synthesis module."""
import equinox as eqx
import jax
import jax.numpy as jnp

from .config import TemporalConfig


class TemporalSynthesis(eqx.Module):
    retention_memory: jax.Array
    retention_weights: jax.Array
    protention_weights: jax.Array
    synthesis_network: eqx.nn.MLP
    config: TemporalConfig

    def __init__(self, config, state_dim, key):
        k1, k2, k3 = jax.random.split(key, 3)
        depth = config.retention_depth
        horizon = config.protention_horizon
        self.retention_memory = jnp.zeros((depth, state_dim))
        self.retention_weights = jax.random.normal(k1, (depth,)) * 0.1
        self.protention_weights = jax.random.normal(k2, (horizon, state_dim)) * 0.1
        self.synthesis_network = eqx.nn.MLP(state_dim * 2, state_dim, 16, 2, key=k3)
        self.config = config

    def __call__(self, impression):
        retained = jnp.einsum("d,ds->s", jax.nn.softmax(self.retention_weights), self.retention_memory)
        return self.synthesis_network(jnp.concatenate([retained, impression]))
