"""Quasi-symmetry error evaluated surface by surface."""
import jax
import jax.numpy as jnp

from .base import _Objective


class QuasisymmetryBoozer(_Objective):
    _static_attrs = _Objective._static_attrs + ["_surf_batch_size"]

    def __init__(self, n_surfaces, surf_batch_size=1):
        self._name = "QS Boozer"
        self._surf_batch_size = surf_batch_size
        self._normalization = jnp.float32(2.0)
        self._constants = {
            "surf_batch_size": surf_batch_size,
            "rho": jnp.linspace(0.2, 1.0, n_surfaces),
        }

    def _surface_error(self, x, rho):
        return jnp.sum(jnp.sin(x * rho) ** 2)

    def compute(self, x, constants):
        rho = constants["rho"]
        batch_size = constants["surf_batch_size"]
        if batch_size == 1:
            return jax.lax.map(lambda r: self._surface_error(x, r), rho)
        return jax.vmap(lambda r: self._surface_error(x, r))(rho)
