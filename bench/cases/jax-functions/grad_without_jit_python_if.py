# source: https://github.com/jax-ml/jax/pull/24862
# framework: jax
# shape: function
# expect: ok

# jax.grad alone keeps concrete values, so Python control flow on the input
# works: the function is differentiated, never jitted.
import jax
import jax.numpy as jnp


def huber(residual, delta=1.0):
    if jnp.abs(residual) <= delta:
        return 0.5 * residual ** 2
    return delta * (jnp.abs(residual) - 0.5 * delta)


def clipped_step(x):
    while x > 10.0:
        x = x / 2.0
    return x ** 2


if __name__ == "__main__":
    dhuber = jax.grad(huber)
    print(dhuber(0.3), dhuber(4.0), dhuber(-4.0))
    print(jax.grad(clipped_step)(37.0))
