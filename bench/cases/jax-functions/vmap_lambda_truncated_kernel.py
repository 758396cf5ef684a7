# source: https://github.com/jax-ml/jax/issues/1076
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 18 JIT101 the ternary in the lambda given to jax.vmap converts the batched `abs(d) > cutoff` to a Python bool

# A mean-shift style smoothing step: a truncated Gaussian weight per distance,
# vectorised with vmap over a lambda written for one scalar.
import jax
import jax.numpy as jnp
import numpy as np

CUTOFF = 0.25
BETA = 2.0


def smoothing_weights(distances):
    weight = jax.vmap(lambda d: 0.0 if jnp.abs(d) > CUTOFF else jnp.exp(-BETA * d ** 2))
    return weight(distances)


if __name__ == "__main__":
    d = jnp.asarray(np.linspace(-0.5, 0.5, 7), dtype=jnp.float32)
    print(smoothing_weights(d))
