# source: https://github.com/jax-ml/jax/issues/7969
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 16 JIT101 the chained comparison `0 < x < 1` evaluates `(0 < x) and (x < 1)`, a Python bool conversion of a traced value

# A piecewise-linear ramp written with jnp.piecewise; works eagerly, fails
# under jit because of the chained comparison in the condition list.
import jax
import jax.numpy as jnp


def ramp(x):
    return jnp.piecewise(
        x,
        [x < 0, 0 < x < 1],
        [0.0, lambda v: v, 1.0],
    )


if __name__ == "__main__":
    print(ramp(0.5))
    ramp_jit = jax.jit(ramp)
    print(ramp_jit(0.5))
