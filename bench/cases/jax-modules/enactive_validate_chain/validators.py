"""Validation helpers for consciousness-state arrays."""
import jax.numpy as jnp


def validate_consciousness_state(state, expected_dim):
    return (
        state.ndim == 1
        and state.shape[0] == expected_dim
        and jnp.all(jnp.isfinite(state))
    )
