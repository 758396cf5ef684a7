# source: https://github.com/google-deepmind/optax/issues/906
# framework: jax
# shape: function
# expect: ok

# Unit-wise norms for adaptive gradient clipping: the branch depends only on
# the rank of each parameter, which is static under jit.
import jax
import jax.numpy as jnp


def unitwise_norm(x):
    if jnp.squeeze(x).ndim <= 1:
        squared_norm = jnp.sum(x ** 2, keepdims=True)
    elif x.ndim in (2, 3):
        squared_norm = jnp.sum(x ** 2, axis=0, keepdims=True)
    elif x.ndim == 4:
        squared_norm = jnp.sum(x ** 2, axis=(0, 1, 2), keepdims=True)
    else:
        raise ValueError(f"unsupported rank {x.ndim} for shape {x.shape}")
    return jnp.broadcast_to(jnp.sqrt(squared_norm), x.shape)


@jax.jit
def clip_unitwise(grads, params, clipping=0.01):
    def clip(g, p):
        max_norm = clipping * jnp.maximum(unitwise_norm(p), 1e-3)
        g_norm = unitwise_norm(g)
        return jnp.where(g_norm > max_norm, g * max_norm / g_norm, g)

    return jax.tree_util.tree_map(clip, grads, params)


if __name__ == "__main__":
    params = {"b": jnp.ones(3), "w": jnp.ones((4, 3)), "k": jnp.ones((3, 3, 2, 4))}
    grads = jax.tree_util.tree_map(lambda p: 5.0 * p, params)
    print(jax.tree_util.tree_map(jnp.shape, clip_unitwise(grads, params)))
