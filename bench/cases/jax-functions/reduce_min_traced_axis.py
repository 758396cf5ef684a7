# source: https://jax.readthedocs.io/en/latest/errors.html
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 14 JIT103 the traced argument `axis` is passed as the reduction axis of `x.min`

# Column or row minimum, the axis picked by the caller.
import jax
import jax.numpy as jnp


@jax.jit
def smallest(x, axis):
    return x.min(axis)


if __name__ == "__main__":
    m = jnp.arange(6.0).reshape(2, 3)
    print(smallest(m, 0))
