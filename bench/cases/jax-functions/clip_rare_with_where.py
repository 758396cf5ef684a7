# source: https://github.com/jax-ml/jax/issues/21994
# framework: jax
# shape: function
# expect: ok

# The jit-compatible spelling from the thread: a three-argument jnp.where
# keeps the shape static. The second helper indexes with a mask built from
# static data only, which is also fine under jit.
import jax
import jax.numpy as jnp
import numpy as np

EVEN_SLOTS = np.arange(10) % 2 == 0


@jax.jit
def drop_rare(counts, floor=5):
    counts = jnp.where(counts < floor, 0, counts)
    return counts / jnp.sum(counts)


@jax.jit
def even_slots(counts):
    return counts[EVEN_SLOTS].sum()


if __name__ == "__main__":
    print(drop_rare(jnp.arange(10.0)))
    print(even_slots(jnp.arange(10.0)))
