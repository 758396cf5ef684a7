# source: https://github.com/google/flax/issues/4870
# framework: jax
# shape: class
# expect: ok
"""A flax.struct dataclass keeps a list of layer names as a non-pytree field;
jit treats it as static metadata of the treedef."""
import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class Readout:
    weights: jax.Array
    names: list = flax.struct.field(pytree_node=False)

    def summary_size(self):
        return len(self.names)


@jax.jit
def normalised(readout):
    return readout.weights.sum() / readout.summary_size()


r = Readout(jnp.ones((2, 2)), ["a", "b"])
print(normalised(r))
print(normalised(Readout(jnp.ones((2, 2)), ["a", "b"])))
