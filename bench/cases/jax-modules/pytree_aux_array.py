# source: https://github.com/jax-ml/jax/issues/19547
# framework: jax
# shape: class
# expect: error ValueError
# hazard: 21 JIT110 a JAX array is put into the pytree's aux data (static): comparing two such treedefs in the jit cache fails
"""A custom pytree keeps an integer index array as auxiliary data; a second,
equal-valued instance breaks the jitted call."""
import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class


@register_pytree_node_class
class Selection:
    def __init__(self, index, values):
        self.index = index
        self.values = values

    def tree_flatten(self):
        children = (self.values,)
        aux_data = (self.index,)
        return children, aux_data

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        (index,) = aux_data
        (values,) = children
        return cls(index, values)


@jax.jit
def pick(sel):
    return sel.values[sel.index].sum()


a = Selection(jnp.array([1, 2]), jnp.array([2.5, 3.5, 4.5, 5.5]))
b = Selection(jnp.array([1, 2]), jnp.array([2.5, 3.5, 4.5, 5.5]))
print(pick(a))
print(pick(b))
