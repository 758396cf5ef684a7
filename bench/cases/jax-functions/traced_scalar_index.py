# source: https://github.com/jax-ml/jax/issues/377
# framework: jax
# shape: function
# expect: ok

# Indexing a JAX array with a traced integer (alone or followed by full
# slices) is supported under jit; so is lax.dynamic_slice with a static size.
import jax
import jax.numpy as jnp


@jax.jit
def row(x, i):
    return x[i]


@jax.jit
def row_slices(x, i):
    return x[i, :] + x[i, ...]


@jax.jit
def window(x, i):
    return jax.lax.dynamic_slice_in_dim(x, i, 2, axis=0)


if __name__ == "__main__":
    x = jnp.arange(12).reshape(4, 3)
    print(row(x, 1), row_slices(x, 2), window(x, 1))
