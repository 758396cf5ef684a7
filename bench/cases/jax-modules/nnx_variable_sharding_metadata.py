# source: https://github.com/google/flax/pull/5231
# source: https://github.com/google/flax/pull/5245
# framework: jax
# shape: class
# expect: ok
"""A flax nnx block whose parameters carry their sharding as Variable metadata
(`out_sharding`), read inside the jitted forward pass to constrain the activations.
Metadata is static by construction: nnx keeps it in the graph definition, not in the
traced state, so branching on it under `nnx.jit` is plain Python."""
import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((1,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


class Block(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.w = nnx.Param(jnp.ones((4, 4)), out_sharding=("data", None), mesh=mesh)
        self.b = nnx.Param(jnp.zeros(4))

    def __call__(self, x):
        names = self.w.get_metadata().get("out_sharding")
        if names and names[0] == "data":
            x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P(*names)))
        if getattr(self.b, "out_sharding", None):
            x = x + 1
        return x @ self.w[...] + self.b[...]


@nnx.jit
def forward(model, x):
    return model(x)


print(forward(Block(nnx.Rngs(0)), jnp.ones((2, 4))))
