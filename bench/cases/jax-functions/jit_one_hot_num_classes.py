# source: https://github.com/jax-ml/jax/pull/3656
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 17 JIT103 `NUM_CLASSES` reaches `num_classes` of jax.nn.one_hot jitted without static_argnames, so it is traced and used as a size

# Label encoding helper jitted directly from the library function.
import jax
import jax.numpy as jnp

NUM_CLASSES = 10

encode_labels = jax.jit(jax.nn.one_hot)


def batch_targets(labels):
    return encode_labels(labels, NUM_CLASSES)


if __name__ == "__main__":
    print(batch_targets(jnp.array([3, 1, 7])).shape)
