# source: https://github.com/GalacticDynamics/galax/pull/692
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 18 JIT101 `__check_init__` runs when the potential is built inside the jitted function: `or` on traced parameters
"""A halo potential validates its parameters in __check_init__; the orbit code
builds the potential inside jax.jit from traced parameters."""
import equinox as eqx
import jax
import jax.numpy as jnp


class NFWPotential(eqx.Module):
    mass: jax.Array
    scale: jax.Array

    def __check_init__(self):
        if (self.mass <= 0) or (self.scale <= 0):
            raise ValueError("mass and scale must be positive")

    def potential(self, r):
        x = r / self.scale
        return -self.mass * jnp.log1p(x) / r


@jax.jit
def energy_along_orbit(mass, scale, radii):
    pot = NFWPotential(mass=mass, scale=scale)
    return pot.potential(radii)


print(energy_along_orbit(jnp.float32(1e2), jnp.float32(5.0), jnp.linspace(1.0, 10.0, 5)))
