# source: https://github.com/jax-ml/jax/issues/14033
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 28 JIT101 the aux-data field holds a JAX array; `==` on it inside jit is a JAX op, so its result is a tracer
"""A quantity pytree keeps its unit factor as aux data, as a JAX array."""
import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class


@register_pytree_node_class
class Quantity:
    def __init__(self, value, unit):
        self.value = value
        self.unit = unit

    def tree_flatten(self):
        return (self.value,), (self.unit,)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(children[0], aux_data[0])


@jax.jit
def to_base(q):
    if q.unit == 1:
        return q.value
    return q.value * q.unit


print(to_base(Quantity(jnp.arange(3.0), jnp.array(1.0))))
