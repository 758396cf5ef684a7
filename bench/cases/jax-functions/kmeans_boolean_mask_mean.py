# source: https://github.com/secretflow/secretflow/issues/406
# framework: jax
# shape: function
# expect: error NonConcreteBooleanIndexError
# hazard: 21 JIT105 `X[labels == j]` indexes with a boolean mask computed from traced data inside the jitted update

# One Lloyd iteration of k-means; the number of clusters is a Python int.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("n_clusters",))
def kmeans_step(X, centroids, n_clusters):
    dists = jnp.sum((X[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    labels = jnp.argmin(dists, axis=1)
    new_centroids = centroids
    for j in range(n_clusters):
        new_centroids = new_centroids.at[j].set(
            X[labels == j].mean(axis=0)
        )
    return new_centroids, labels


if __name__ == "__main__":
    X = jax.random.normal(jax.random.PRNGKey(0), (20, 2))
    c0 = X[:3]
    print(kmeans_step(X, c0, n_clusters=3)[0])
