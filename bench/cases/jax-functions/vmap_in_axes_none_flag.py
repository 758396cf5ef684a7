# source: https://github.com/jax-ml/jax/issues/1120
# framework: jax
# shape: function
# expect: ok

# An argument mapped with in_axes=None is passed through vmap untouched, so a
# Python bool option can drive Python control flow inside the vmapped body.
import jax
import jax.numpy as jnp


def python_control_flow(x, option=False):
    return x ** 2 if option else x ** 3


if __name__ == "__main__":
    xs = jnp.arange(3.0)
    print(jax.vmap(python_control_flow, in_axes=(0, None))(xs, True))
    print(jax.jit(jax.vmap(lambda x: python_control_flow(x, True)))(xs))
    print(jax.vmap(python_control_flow)(xs))
