# source: https://github.com/patrick-kidger/equinox/issues/11
# framework: jax
# shape: class
# expect: error ValueError
# hazard: 27 JIT110|JIT111 `self` made static on an eqx.Module whose fields hold arrays: hashing it fails
"""An associative-memory module whose energy method is jitted with self static."""
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp


class NeuronLayer(eqx.Module):
    size: int
    tau: float


class HopfieldNet(eqx.Module):
    layers: list
    weights: jax.Array

    def __init__(self, sizes, key):
        self.layers = [NeuronLayer(s, 1.0) for s in sizes]
        self.weights = jax.random.normal(key, (sizes[0], sizes[1]))

    @partial(jax.jit, static_argnums=0)
    def energy(self, visible, hidden):
        return -visible @ self.weights @ hidden


net = HopfieldNet([4, 3], jax.random.PRNGKey(0))
print(net.energy(jnp.ones(4), jnp.ones(3)))
