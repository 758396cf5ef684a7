# source: https://github.com/jax-ml/jax/pull/2925
# framework: jax
# shape: function
# expect: ok

# Shuffle a batch inside a jitted step. jax.random.permutation is given the
# array itself (not a size), so nothing about its shape depends on values.
import jax
import jax.numpy as jnp


@jax.jit
def shuffled_minibatch(key, images, labels):
    perm = jax.random.permutation(key, jnp.arange(images.shape[0]))
    shuffled_labels = jax.random.permutation(key, labels)
    return images[perm][:4], shuffled_labels[:4]


if __name__ == "__main__":
    images = jnp.arange(32.0).reshape(8, 4)
    labels = jnp.arange(8)
    print(shuffled_minibatch(jax.random.PRNGKey(0), images, labels))
