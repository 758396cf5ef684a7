# source: https://github.com/jax-ml/jax/issues/4449
# framework: jax
# shape: function
# expect: ok

# The working spelling from the thread: shape arithmetic with Python operators
# on `.size` / `.shape` stays static under jit (no jnp.add on the shape).
import jax
import jax.numpy as jnp


@jax.jit
def custom_ones(arr):
    count = arr.size + 1
    return jnp.ones((count,))


@jax.jit
def pad_to_square(m):
    rows, cols = m.shape
    side = max(rows, cols)
    out = jnp.zeros((side, side), m.dtype)
    return out.at[:rows, :cols].set(m)


if __name__ == "__main__":
    print(custom_ones(jnp.ones((3,))))
    print(pad_to_square(jnp.ones((2, 3))))
