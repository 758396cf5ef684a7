# source: https://github.com/jax-ml/jax/pull/22049
# framework: jax
# shape: function
# expect: ok

# shard_map with `None` entries in in_specs: those arguments are passed to
# every shard unchanged, as the Python objects they are (here a reduction
# name and an int), so Python branching on them is fine.
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("d",))


def normalise_shard(x, reduction, scale):
    if reduction == "mean" and scale > 1:
        return x / jax.lax.pmean(jnp.sum(x), "d") * scale
    elif reduction == "max":
        return x / jax.lax.pmax(jnp.max(x), "d")
    return x


normalise = jax.shard_map(
    normalise_shard, mesh=mesh, in_specs=(P("d"), None, None), out_specs=P("d")
)


if __name__ == "__main__":
    x = jnp.arange(1.0, 9.0)
    print(normalise(x, "mean", 2))
    print(normalise(x, "max", 1))
    print(jax.jit(lambda v: normalise(v, "mean", 3))(x))
