# source: https://github.com/jax-ml/jax/issues/13769
# framework: jax
# shape: function
# expect: ok

# Concatenate per-block parameter vectors, update them as one flat vector and
# split them back. The split points are Python ints computed with len() in a
# comprehension, so they are static inside jit.
import itertools

import jax
import jax.numpy as jnp


@jax.jit
def flat_update(blocks, step):
    sizes = [len(b) for b in blocks]
    offsets = list(itertools.accumulate(sizes))[:-1]
    flat = jnp.concatenate(blocks)
    flat = flat - step * jnp.sign(flat)
    return jnp.split(flat, offsets)


if __name__ == "__main__":
    blocks = [jnp.ones(3), -jnp.ones(2), jnp.arange(4.0)]
    print(flat_update(blocks, 0.1))
