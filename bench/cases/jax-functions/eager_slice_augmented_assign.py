# source: https://github.com/google/objax/issues/59
# framework: jax
# shape: function
# expect: error TypeError
# hazard: 14 JIT106 `counts[lo:hi] += 1` augmented item assignment on a jax.numpy array (no jit involved)

# A histogram-style update ported from NumPy; the array now comes from
# jax.numpy, which has immutable arrays even outside jit.
import jax.numpy as jnp


def bump_range(n_bins, lo, hi):
    counts = jnp.zeros(n_bins, dtype=jnp.int32)
    counts[lo:hi] += 1
    return counts


if __name__ == "__main__":
    print(bump_range(10, 2, 4))
