# source: https://github.com/jax-ml/jax/pull/789
# framework: jax
# shape: function
# expect: ok

# Gradient all-reduce that skips communication on a single device. The
# device count comes from `lax.psum(1, axis)`, a Python int at trace time.
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("dp",))


def allreduce_grads(grads):
    n = jax.lax.psum(1, "dp")
    if n > 1:
        grads = jax.tree_util.tree_map(lambda g: jax.lax.psum(g, "dp") / n, grads)
    return grads


def per_shard_grads(w, x):
    g = jax.grad(lambda w: jnp.sum((x @ w) ** 2))(w)
    return allreduce_grads({"w": g})


if __name__ == "__main__":
    step = jax.jit(
        jax.shard_map(per_shard_grads, mesh=mesh, in_specs=(P(), P("dp")), out_specs=P())
    )
    print(step(jnp.ones(3), jnp.ones((8, 3))))
