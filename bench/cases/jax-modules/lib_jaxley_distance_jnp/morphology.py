"""Compartments of a neuron model, after the fix: the distance is computed with jax.numpy,
so positions traced by the user's jit flow through it; the NumPy weights are a constant."""

import jax.numpy as jnp
import numpy as np


class Compartment:
    def __init__(self, xyz, radius=1.0):
        self.xyz = xyz
        self.radius = radius

    def distance(self, other):
        delta = self.xyz - other.xyz
        return jnp.sqrt(jnp.sum(delta * delta * np.asarray([1.0, 1.0, 1.0])))

    def surface_area(self, length):
        return 2.0 * jnp.pi * self.radius * length
