# source: https://github.com/patrick-kidger/equinox/issues/1133
# framework: jax
# shape: class
# expect: ok
"""A module validates its parameters with eqx.error_if in __check_init__, so
it can be constructed inside jitted code."""
import equinox as eqx
import jax
import jax.numpy as jnp


class Gaussian(eqx.Module):
    mean: jax.Array
    sigma: jax.Array

    def __check_init__(self):
        eqx.error_if(self.sigma, self.sigma <= 0, "sigma must be positive")

    def log_prob(self, x):
        z = (x - self.mean) / self.sigma
        return -0.5 * z ** 2 - jnp.log(self.sigma) - 0.5 * jnp.log(2 * jnp.pi)


@jax.jit
def total_log_prob(mean, sigma, xs):
    return jnp.sum(Gaussian(mean, sigma).log_prob(xs))


print(total_log_prob(jnp.float32(0.0), jnp.float32(1.5), jnp.linspace(-1.0, 1.0, 5)))
