# source: https://github.com/jax-ml/jax/issues/9288
# framework: jax
# shape: function
# expect: ok

# What the reporter observed for the tutorial version: jax.jit applied to the
# same module-level function inside a loop hits the cache after the first
# compile, because the cache is keyed on the function object.
import jax
import jax.numpy as jnp


def unjitted_loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted(x, n):
    i = 0
    while i < n:
        i = jax.jit(unjitted_loop_body)(i)
    return x + i


if __name__ == "__main__":
    print(g_inner_jitted(10, 5))
    print(g_inner_jitted(10, 3))
