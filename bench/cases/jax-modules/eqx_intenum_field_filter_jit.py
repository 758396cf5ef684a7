# source: https://github.com/patrick-kidger/equinox/issues/177
# framework: jax
# shape: class
# expect: ok
"""An optical layer whose unit is an enum.IntEnum field; eqx.filter_jit keeps
non-array leaves such as the enum static, so the `if` on it is fine."""
import enum

import equinox as eqx
import jax
import jax.numpy as jnp


class Unit(enum.IntEnum):
    METRES = 0
    ARCSEC = 1


class Aperture(eqx.Module):
    diameter: jax.Array
    unit: Unit

    def scale(self):
        if self.unit == Unit.ARCSEC:
            return self.diameter / 206265.0
        return self.diameter


@eqx.filter_jit
def pupil_area(aperture):
    d = aperture.scale()
    return jnp.pi * (d / 2) ** 2


print(pupil_area(Aperture(jnp.float32(2.4), Unit.METRES)))
print(pupil_area(Aperture(jnp.float32(2.4), Unit.ARCSEC)))
