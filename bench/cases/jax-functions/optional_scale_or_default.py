# source: https://github.com/jax-ml/jax/pull/16430
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 17 JIT101 `temperature or 1.0` converts the traced `temperature` array to a Python bool

# Softmax with an optional temperature: callers either omit it or pass a
# per-batch value computed elsewhere. The "or default" idiom breaks under jit
# as soon as a value is actually passed.
import jax
import jax.numpy as jnp


@jax.jit
def tempered_softmax(logits, temperature=None):
    # Fall back to 1.0 when no temperature is given.
    temperature = temperature or 1.0
    return jax.nn.softmax(logits / temperature, axis=-1)


if __name__ == "__main__":
    logits = jnp.array([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]])
    print(tempered_softmax(logits))
    print(tempered_softmax(logits, jnp.float32(0.5)))
