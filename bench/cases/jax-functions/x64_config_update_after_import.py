# source: https://github.com/jax-ml/jax/issues/652
# framework: jax
# shape: function
# expect: ok

# Enabling double precision through jax.config after importing JAX, the
# suggestion in the thread; unlike the environment variable, this works.
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp


def lu_residual(A):
    lu, piv, perm = jax.lax.linalg.lu(A)
    return lu.dtype


if __name__ == "__main__":
    A = jnp.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], dtype=jnp.float64)
    assert A.dtype == jnp.float64
    print(lu_residual(A))
