"""Factory that builds the processor under eqx.filter_jit: the config's int
fields are not arrays, so filter_jit keeps them static."""
import equinox as eqx

from .temporal import TemporalSynthesis


@eqx.filter_jit
def create_temporal_processor(config, state_dim, key):
    return TemporalSynthesis(config, state_dim, key)
