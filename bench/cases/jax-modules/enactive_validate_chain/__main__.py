# source: https://github.com/yaaman18/llm-spontaneous-action-artifact
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: core.py:11 JIT101 reached through `super().__call__` from the jitted subclass call: the helper returns `jnp.all(...)` (a tracer) and `not` converts it to bool
"""Runs the temporal processor under eqx.filter_jit (adapted from the
enactive-consciousness framework; see the seed's README)."""
import equinox as eqx
import jax
import jax.numpy as jnp

from .temporal import TemporalSynthesis


@eqx.filter_jit
def synthesize(processor, impression):
    return processor(impression)


def main():
    processor = TemporalSynthesis(state_dim=8, depth=4, key=jax.random.PRNGKey(0))
    impression = jnp.linspace(-1.0, 1.0, 8)
    print(processor(impression))
    print(synthesize(processor, impression))


main()
