# source: https://github.com/asantini29/phentax/pull/28
# framework: jax
# shape: multi-file
# expect: error ConcretizationTypeError
# hazard: waveform.py:14 JIT102 `int()` of a value computed from the traced masses inside the jitted method
# hazard: waveform.py:15 JIT101 `assert` on a traced spin check
"""Generates one waveform through a jitted bound method."""
import jax
import jax.numpy as jnp

from .waveform import IMRPhenomT


def main():
    model = IMRPhenomT(delta_t=1.0 / 32.0, f_min=40.0)
    generate = jax.jit(model.compute_polarizations)
    hp, hc = generate(jnp.float32(30.0), jnp.float32(25.0), jnp.float32(0.3), jnp.float32(-0.2))
    print(hp.shape, hc.shape)


main()
