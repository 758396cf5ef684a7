# source: https://github.com/QuantEcon/lecture-jax/issues/95
# framework: jax
# shape: function
# expect: error TracerIntegerConversionError
# hazard: 17 JIT102 `range(num_iterations)` on an argument that jax.jit traces once static_argnums was dropped

# Spectral radius by power iteration. The jit wrapper lost its static_argnums
# in an edit; the default call still works, a caller raising the iteration
# count does not.
import jax
import jax.numpy as jnp


def power_iteration_sr(A, num_iterations=15, seed=1234):
    key = jax.random.PRNGKey(seed)
    b = jax.random.normal(key, (A.shape[1],))
    for _ in range(num_iterations):
        b = A @ b
        b = b / jnp.linalg.norm(b)
    return jnp.dot(b, A @ b) / jnp.dot(b, b)


power_iteration_sr = jax.jit(power_iteration_sr)


if __name__ == "__main__":
    A = jnp.array([[0.9, 0.1], [0.4, 0.6]])
    print(power_iteration_sr(A))
    print(power_iteration_sr(A, num_iterations=40))
