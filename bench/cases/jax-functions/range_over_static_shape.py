# source: https://docs.jax.dev/en/latest/control-flow.html
# framework: jax
# shape: function
# expect: ok

# Python loops inside jit whose trip counts come from shapes or constants are
# unrolled at trace time; indexing with the loop variable is then static.
import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    for i in range(3):
        x = 2 * x
    return x


@jax.jit
def g(x):
    y = 0.0
    for i in range(x.shape[0]):
        y = y + x[i]
    return y


@jax.jit
def running_rows(m):
    rows = [m[i] * (i + 1) for i in range(len(m))]
    return jnp.stack(rows)


if __name__ == "__main__":
    print(f(3))
    print(g(jnp.array([1.0, 2.0, 3.0])))
    print(running_rows(jnp.ones((3, 2))))
