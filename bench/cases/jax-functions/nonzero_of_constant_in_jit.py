# source: https://github.com/jax-ml/jax/issues/5280
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 18 JIT105 jnp.nonzero without `size=` inside jit, on an array built with jnp from constants (itself a tracer)

# Gather the active channels of a fixed channel mask. The mask only depends
# on constants, but jnp operations inside jit still produce tracers.
import jax
import jax.numpy as jnp

CHANNEL_FLAGS = [0, 1, 2, 0, 3]


@jax.jit
def active_channels(signal):
    flags = jnp.array(CHANNEL_FLAGS)
    (idx,) = jnp.nonzero(flags)
    return signal[idx]


if __name__ == "__main__":
    print(active_channels(jnp.arange(5.0) * 10))
