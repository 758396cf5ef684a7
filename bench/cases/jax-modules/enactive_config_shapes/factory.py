"""Factory that builds the processor under jit for speed."""
import functools

import jax

from .temporal import TemporalSynthesis


@functools.partial(jax.jit, static_argnames=["state_dim"])
def create_temporal_processor(config, state_dim, key):
    return TemporalSynthesis(config, state_dim, key)
