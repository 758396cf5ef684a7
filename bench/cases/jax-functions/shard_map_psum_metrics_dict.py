# source: https://docs.jax.dev/en/latest/notebooks/shard_map.html
# framework: jax
# shape: function
# expect: ok

# Data-parallel loss with shard_map: per-shard metrics are summed with
# lax.psum (a dict in, a dict out), then normalised and extended in place.
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))


def local_metrics(w, x, y):
    err = x @ w - y
    metrics = {"sse": jnp.sum(err ** 2), "count": jnp.float32(err.shape[0])}
    metrics = jax.lax.psum(metrics, "data")
    metrics["mse"] = metrics["sse"] / metrics["count"]
    metrics["devices"] = jax.lax.psum(1, "data")
    return metrics


@jax.jit
def evaluate(w, x, y):
    fn = jax.shard_map(
        local_metrics,
        mesh=mesh,
        in_specs=(P(), P("data"), P("data")),
        out_specs=P(),
    )
    return fn(w, x, y)


if __name__ == "__main__":
    x = jnp.ones((8, 3))
    y = jnp.arange(8.0)
    print(evaluate(jnp.ones(3), x, y))
