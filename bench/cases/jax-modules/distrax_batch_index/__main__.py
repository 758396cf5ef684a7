# source: https://github.com/google-deepmind/distrax/issues/291
# framework: jax
# shape: multi-file
# expect: error TracerArrayConversionError
# hazard: distribution.py:9 JIT104 a NumPy array from `np.indices` is indexed by the traced index passed to `Categorical.__getitem__`
"""Entropy of a slice of a batched categorical, eager then jitted."""
import jax
import jax.numpy as jnp

from .categorical import Categorical


def sliced_entropy(logits):
    dist = Categorical(logits=logits)
    rows = jnp.arange(logits.shape[0])
    return dist[rows].entropy()


def main():
    logits = jnp.zeros((3, 3, 3))
    print(sliced_entropy(logits).shape)
    print(jax.jit(sliced_entropy)(logits).shape)


main()
