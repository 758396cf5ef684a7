# source: https://github.com/jax-ml/jax/issues/101
# framework: jax
# shape: function
# expect: ok

# The suggestion in the thread: build the dataset with ordinary NumPy arrays
# (in-place writes are fine there), then hand it to jitted JAX code.
import jax
import jax.numpy as jnp
import numpy as np


def build_dataset(n):
    x = np.zeros((n, 3), dtype=np.float32)
    for i in range(n):
        x[i, :] = (i, 2 * i, 3 * i)
    x[:, 2] += 1.0
    return x


@jax.jit
def normalise(x):
    return (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-6)


if __name__ == "__main__":
    data = build_dataset(5)
    print(normalise(data))
