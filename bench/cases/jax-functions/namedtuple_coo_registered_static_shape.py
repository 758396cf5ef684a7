# source: https://github.com/jax-ml/jax/issues/6455
# framework: jax
# shape: function
# expect: ok

# The fix from the thread: register the NamedTuple as a pytree whose `shape`
# field is auxiliary data, so it stays a Python tuple inside jit.
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node


class COO(NamedTuple):
    rows: jnp.ndarray
    cols: jnp.ndarray
    vals: jnp.ndarray
    shape: Sequence[int]


def _coo_flatten(mat):
    return (mat.rows, mat.cols, mat.vals), tuple(mat.shape)


def _coo_unflatten(shape, children):
    return COO(*children, shape)


register_pytree_node(COO, _coo_flatten, _coo_unflatten)


@jax.jit
def sparse_matvec(mat: COO, vec):
    prod = jnp.take(vec, mat.cols, axis=0) * mat.vals
    n_rows = mat.shape[0]
    if n_rows > 1:
        return jax.ops.segment_sum(prod, mat.rows, n_rows)
    return jnp.sum(prod, keepdims=True)


if __name__ == "__main__":
    m = COO(
        rows=jnp.array([0, 1, 1, 2]),
        cols=jnp.array([1, 0, 2, 2]),
        vals=jnp.array([2.0, 1.0, 3.0, 4.0]),
        shape=(3, 3),
    )
    print(sparse_matvec(m, jnp.array([1.0, 2.0, 3.0])))
