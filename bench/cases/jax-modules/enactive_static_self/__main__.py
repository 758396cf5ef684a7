# source: https://github.com/yaaman18/llm-spontaneous-action-artifact
# framework: jax
# shape: multi-file
# expect: error ValueError
# hazard: temporal.py:32 JIT110|JIT111 `self` is made static, but it is an eqx.Module holding arrays: it cannot be hashed
# hazard: temporal.py:34 JIT101 `or` on the traced `timestamp` argument of the jitted method
# hazard: core.py:11 JIT101 the helper's `and` chain ends in `jnp.all(...)`, a tracer; `not` converts it to bool
"""Runs the jitted temporal synthesis (adapted from the enactive-consciousness
framework; see the seed's README)."""
import jax
import jax.numpy as jnp

from .temporal import TemporalSynthesis


def main():
    processor = TemporalSynthesis(state_dim=8, depth=4, key=jax.random.PRNGKey(0))
    impression = jnp.linspace(-1.0, 1.0, 8)
    moment = processor.temporal_synthesis_jit(impression, timestamp=jnp.float32(0.5))
    print(moment.present)


main()
