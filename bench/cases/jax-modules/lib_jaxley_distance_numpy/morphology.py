"""Compartments of a neuron model in the style of a differentiable-simulation library: each
compartment knows its position, and `distance` measures the path to another one. Positions
may be parameters the user optimises under jit."""

import jax.numpy as jnp
import numpy as np


class Compartment:
    def __init__(self, xyz, radius=1.0):
        self.xyz = xyz
        self.radius = radius

    def distance(self, other):
        delta = self.xyz - other.xyz
        return np.sqrt(np.sum(delta * delta * np.asarray([1.0, 1.0, 1.0])))

    def surface_area(self, length):
        return 2.0 * jnp.pi * self.radius * length
