# source: https://github.com/jax-ml/jax/issues/8962
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 15 JIT102 `.item()` on a traced array inside the jitted function

# A helper that reads back a one-element array as a Python scalar works
# eagerly and fails once the caller is jitted.
import jax
import jax.numpy as jnp


def normalise_by_peak(signal):
    peak = jnp.max(jnp.abs(signal), keepdims=True)
    scale = peak.item()
    return signal / scale


if __name__ == "__main__":
    x = jnp.array([0.5, -2.0, 1.0])
    print(normalise_by_peak(x))
    print(jax.jit(normalise_by_peak)(x))
