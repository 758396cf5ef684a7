# source: https://github.com/jax-ml/jax/issues/5186
# framework: jax
# shape: function
# expect: ok

# The recommendation from the thread: shape and mask bookkeeping on constant
# data is done with NumPy, which runs at trace time, so the Python branch and
# the boolean index below are on concrete values.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def filled_circle(values, radius):
    n = values.shape[0]
    coords = np.arange(n) - (n - 1) / 2.0
    ring = np.abs(coords) <= (n - 1) / 2.0
    if np.any(coords == 0):
        center = int(np.argmin(np.abs(coords)))
    else:
        center = n // 2
    inside = jnp.abs(jnp.asarray(coords)) < radius
    out = jnp.where(inside, values, 0.0)
    return out[ring].sum() + out[center]


if __name__ == "__main__":
    print(filled_circle(jnp.arange(7.0), 2.0))
