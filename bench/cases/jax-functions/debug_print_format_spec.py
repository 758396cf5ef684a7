# source: https://github.com/jax-ml/jax/issues/23475
# framework: jax
# shape: function
# expect: ok

# jax.debug.print with a format spec in the template: the formatting happens
# on the runtime (scalar) values, not on tracers (fixed since the report).
import jax
import jax.numpy as jnp


@jax.jit
def kernel(a):
    total = jnp.sum(a)
    jax.debug.print("total={:.2f}", total)
    jax.debug.print("sum={s:8.3f} max={m:.1f}", s=total, m=jnp.max(a))
    return a * 2


if __name__ == "__main__":
    kernel(jnp.array([1.23456, 2.5]))
    kernel(jnp.array([3.0, 4.0]))
