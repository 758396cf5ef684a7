# source: https://github.com/jax-ml/jax/issues/17197
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 29 JIT110 jit of an instance of a non-frozen dataclass: jit hashes the callable, and `@dataclass` (eq=True) made it unhashable
"""A callable kernel object, registered as a pytree, is jitted directly."""
from dataclasses import dataclass

import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node


@dataclass
class RBFKernel:
    lengthscale: jnp.ndarray

    def __call__(self, x, y):
        return jnp.exp(-jnp.sum((x - y) ** 2) / self.lengthscale)


register_pytree_node(
    RBFKernel,
    lambda k: ((k.lengthscale,), None),
    lambda _, children: RBFKernel(*children),
)

kernel = RBFKernel(jnp.float32(2.0))
fast_kernel = jax.jit(kernel)
print(fast_kernel(jnp.ones(3), jnp.zeros(3)))
