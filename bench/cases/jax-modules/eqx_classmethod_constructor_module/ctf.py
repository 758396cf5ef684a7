"""A contrast-transfer-function module with an alternative constructor that must work on both
sides of a JIT boundary, in the library's own module."""

import equinox as eqx
import jax
import jax.numpy as jnp


class CTF(eqx.Module):
    defocus_u: jax.Array
    defocus_v: jax.Array
    astigmatism_angle: jax.Array

    @classmethod
    def from_defocus(cls, defocus_u, defocus_v, angle=0.0):
        if defocus_u < defocus_v:
            raise ValueError("defocus_u must be >= defocus_v")
        return cls(jnp.asarray(defocus_u), jnp.asarray(defocus_v), jnp.asarray(angle))

    def __call__(self, freqs):
        mean = 0.5 * (self.defocus_u + self.defocus_v)
        return jnp.sin(jnp.pi * mean * jnp.sum(freqs**2, axis=-1))
