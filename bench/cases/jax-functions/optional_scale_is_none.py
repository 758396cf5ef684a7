# source: https://github.com/jax-ml/jax/pull/16430
# framework: jax
# shape: function
# expect: ok

# The explicit form of the default: testing `is None` never converts the
# array to a bool, so the jitted function accepts both call styles.
import jax
import jax.numpy as jnp


@jax.jit
def tempered_softmax(logits, temperature=None):
    if temperature is None:
        temperature = 1.0
    return jax.nn.softmax(logits / temperature, axis=-1)


if __name__ == "__main__":
    logits = jnp.array([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]])
    print(tempered_softmax(logits))
    print(tempered_softmax(logits, jnp.float32(0.5)))
