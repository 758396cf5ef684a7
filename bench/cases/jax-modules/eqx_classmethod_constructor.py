# source: https://github.com/patrick-kidger/equinox/issues/1133
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 20 JIT101 the classmethod constructor validates its arguments with a Python `if`; `eqx.filter_jit(CTF.from_defocus)` passes them in as tracers
"""A contrast-transfer-function module with an alternative constructor that
must work on both sides of a JIT boundary."""
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
        return jnp.sin(jnp.pi * mean * jnp.sum(freqs ** 2, axis=-1))


ctf = CTF.from_defocus(1.2, 1.0)
print(ctf(jnp.ones((2, 2))))
make_ctf = eqx.filter_jit(CTF.from_defocus)
ctf = make_ctf(jnp.float32(1.5), jnp.float32(1.1))
print(ctf(jnp.ones((2, 2))))
