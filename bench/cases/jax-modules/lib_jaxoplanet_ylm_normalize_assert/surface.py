"""Spherical-harmonic surface maps as equinox modules, in the style of an exoplanet
light-curve library: a `Surface` normalises its map so that the (0, 0) coefficient is 1."""

import equinox as eqx
import jax
import jax.numpy as jnp


class Ylm(eqx.Module):
    data: dict[tuple[int, int], jax.Array]
    ell_max: int = eqx.field(static=True)

    def __init__(self, data):
        self.data = dict(data)
        self.ell_max = max(ell for ell, _ in self.data)

    @classmethod
    def from_dense(cls, y):
        data = {}
        for i, value in enumerate(y):
            ell = int(i**0.5)
            data[(ell, i - ell * (ell + 1))] = value
        return cls(data)

    def normalize(self) -> "Ylm":
        assert self.data[(0, 0)] != 0.0, "the (0, 0) coefficient must not be zero"
        scale = self.data[(0, 0)]
        return Ylm({key: value / scale for key, value in self.data.items()})


class Surface(eqx.Module):
    y: Ylm
    inc: jax.Array
    amplitude: jax.Array

    def __init__(self, y=None, inc=jnp.pi / 2, amplitude=1.0, normalize=True):
        y = Ylm({(0, 0): 1.0}) if y is None else y
        self.y = y.normalize() if normalize else y
        self.inc = jnp.asarray(inc)
        self.amplitude = jnp.asarray(amplitude)

    def flux(self) -> jax.Array:
        return self.amplitude * self.y.data[(0, 0)] * jnp.sin(self.inc)
