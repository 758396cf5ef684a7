# source: https://github.com/jax-ml/jax/issues/1007
# framework: jax
# shape: function
# expect: ok

# The masking alternative from the thread: the window is expressed with
# jnp.where over a static-length iota, so nothing depends on k's value
# at trace time. `len(a)` is static.
import jax
import jax.numpy as jnp


@jax.jit
def sum_first_k(a, k):
    n = len(a)
    return jnp.sum(jnp.where(jnp.arange(n) < k, a, 0))


@jax.jit
def window(a, start):
    return jax.lax.dynamic_slice(a, (start,), (2,))


if __name__ == "__main__":
    print(sum_first_k(jnp.arange(3.0), 2))
    print(window(jnp.arange(5.0), 1))
