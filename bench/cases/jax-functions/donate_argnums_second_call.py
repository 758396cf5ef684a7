# source: https://github.com/jax-ml/jax/issues/9675
# framework: jax
# shape: function
# expect: error ValueError
# hazard: 23 JIT115 `buf` was donated by the first call, so the second call passes a deleted buffer

# A counter kept on the device and advanced by a jitted step that donates
# its input to save memory; the script steps it twice from the same buffer.
import jax
import jax.numpy as jnp


def advance(counter):
    return counter + 1


advance_donated = jax.jit(advance, donate_argnums=(0,))


if __name__ == "__main__":
    buf = jnp.array(1)
    advance_donated(buf)
    print(advance_donated(buf))
