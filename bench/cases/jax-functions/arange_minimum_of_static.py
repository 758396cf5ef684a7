# source: https://github.com/jax-ml/jax/issues/4798
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 19 JIT103 `jnp.minimum` of two Python ints returns a tracer inside jit; it is then used as the `stop` of jnp.arange

# `n` is static and `x.shape[0]` is static, so the author expected their
# minimum to be static too. Inside jit every jnp operation is staged.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0,))
def first_indices(n, x):
    available = jnp.shape(x)[0]
    n_actual = jnp.minimum(available, n)
    return jnp.arange(n_actual)


if __name__ == "__main__":
    print(first_indices(5, jnp.arange(10)))
