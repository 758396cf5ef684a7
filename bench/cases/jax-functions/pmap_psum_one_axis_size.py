# source: https://github.com/jax-ml/jax/issues/929
# framework: jax
# shape: function
# expect: ok

# Inside pmap, `lax.psum(1, axis_name)` is the idiom for the axis size: JAX
# folds it to a Python int, so it can drive a Python loop and a division.
from functools import partial

import jax
import jax.numpy as jnp


def pmean(x, axis_name):
    return jax.lax.psum(x, axis_name) / jax.lax.psum(1, axis_name)


@partial(jax.pmap, axis_name="i")
def ring_average(x):
    n = jax.lax.psum(1, "i")
    acc = x
    for shift in range(1, n):
        perm = [(j, (j + shift) % n) for j in range(n)]
        acc = acc + jax.lax.ppermute(x, "i", perm)
    return acc / n, pmean(x, "i")


if __name__ == "__main__":
    xs = jnp.arange(jax.local_device_count() * 3.0).reshape(-1, 3)
    print(ring_average(xs))
