# source: https://github.com/jax-ml/jax/issues/6455
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 25 JIT103 `mat.shape[0]` is a field of the NamedTuple argument, a pytree leaf that jax.jit traces, used as `num_segments`

# A coordinate-list sparse matrix kept in a NamedTuple. Its `shape` field is
# plain ints, but as a NamedTuple field it is flattened and traced with the rest.
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp


class COO(NamedTuple):
    rows: jnp.ndarray
    cols: jnp.ndarray
    vals: jnp.ndarray
    shape: Sequence[int]


@jax.jit
def sparse_matvec(mat: COO, vec):
    prod = jnp.take(vec, mat.cols, axis=0) * mat.vals
    return jax.ops.segment_sum(prod, mat.rows, mat.shape[0])


if __name__ == "__main__":
    m = COO(
        rows=jnp.array([0, 1, 1, 2]),
        cols=jnp.array([1, 0, 2, 2]),
        vals=jnp.array([2.0, 1.0, 3.0, 4.0]),
        shape=(3, 3),
    )
    print(sparse_matvec(m, jnp.array([1.0, 2.0, 3.0])))
