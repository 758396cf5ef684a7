# source: https://github.com/jax-ml/jax/issues/204
# framework: jax
# shape: function
# expect: error TypeError
# hazard: 16 JIT103 `pad_to_length` is a traced argument of the jitted function, used as a dimension of `lax.full`

# Place a row at the top of a zero matrix of a requested height. Fine
# eagerly; jit traces the requested height.
import jax
import jax.numpy as jnp
from jax import lax


def pad_first_row(first_row, pad_to_length):
    width = first_row.shape[0]
    empty = lax.full((pad_to_length, width), 0, first_row.dtype)
    return lax.dynamic_update_slice(empty, first_row.reshape(1, width), (0, 0))


if __name__ == "__main__":
    row = jnp.array([1, 2])
    print(pad_first_row(row, 4))
    pad_jit = jax.jit(pad_first_row)
    print(pad_jit(row, 4))
