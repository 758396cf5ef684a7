# source: https://github.com/rlouf/mcx/pull/29
# framework: jax
# shape: function
# expect: ok

# Kernel factories as in the warmup rewrite: settings are closed over as
# Python values and the factory returns a jitted kernel, built once and then
# reused for every step. Branches and loop bounds use the closed-over values.
import jax
import jax.numpy as jnp


def build_kernel(num_integration_steps, step_size, diagonal_mass=True):
    def kernel(rng, position):
        momentum = jax.random.normal(rng, position.shape)
        if diagonal_mass:
            momentum = momentum * jnp.ones_like(position)
        for _ in range(num_integration_steps):
            momentum = momentum - 0.5 * step_size * position
            position = position + step_size * momentum
            momentum = momentum - 0.5 * step_size * position
        return position

    return jax.jit(kernel)


def run_chain(rng, position, num_samples):
    kernel = build_kernel(num_integration_steps=5, step_size=0.1)
    for _ in range(num_samples):
        rng, sub = jax.random.split(rng)
        position = kernel(sub, position)
    return position


if __name__ == "__main__":
    print(run_chain(jax.random.PRNGKey(0), jnp.ones(3), 4))
