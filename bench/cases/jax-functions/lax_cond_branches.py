# source: https://github.com/jax-ml/jax/issues/2256
# framework: jax
# shape: function
# expect: ok

# A value-dependent branch written with lax.cond, differentiated and jitted.
import jax
import jax.numpy as jnp
from jax import lax


def f_1(x):
    return x ** 2


def f_2(x):
    return x ** 3


def f(x):
    return lax.cond(x > 0, f_1, f_2, x)


def soft_threshold(x, lam):
    return lax.cond(
        jnp.abs(x) > lam,
        lambda v: jnp.sign(v) * (jnp.abs(v) - lam),
        lambda v: jnp.zeros_like(v),
        x,
    )


if __name__ == "__main__":
    print(jax.grad(f)(3.0), jax.jit(jax.grad(f))(-2.0))
    print(jax.jit(jax.vmap(soft_threshold, in_axes=(0, None)))(jnp.array([-2.0, 0.1, 3.0]), 0.5))
