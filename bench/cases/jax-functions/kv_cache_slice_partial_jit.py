# source: https://github.com/AakashKumarNain/mistral_jax/issues/1
# framework: jax
# shape: function
# expect: error IndexError
# hazard: 17 JIT103 `pos` is not among the static arguments, so `x[:pos]` slices with a traced bound

# Read the filled part of a key/value cache and repeat heads for grouped
# attention. Only the repeat count was marked static.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("kv_repeats",))
def get_cache_slice(x, pos, kv_repeats):
    x_slice = x[:pos]
    return jnp.repeat(x_slice, kv_repeats, axis=1)


if __name__ == "__main__":
    cache = jnp.zeros((8, 2, 4))
    print(get_cache_slice(cache, 3, kv_repeats=2).shape)
