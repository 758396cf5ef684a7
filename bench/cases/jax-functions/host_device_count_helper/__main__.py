# source: https://github.com/pyro-ppl/numpyro/issues/2096
# framework: jax
# shape: multi-file
# expect: observed devices=1
# hazard: runtime.py:9 JIT301 XLA_FLAGS is written by the helper after the script has already run a JAX computation, so the requested device count is ignored

# A forecasting notebook turned script: data is prepared with jax.numpy,
# then the helper is asked for 4 host devices to run 4 chains with pmap.
import jax
import jax.numpy as jnp

from host_device_count_helper.runtime import set_host_device_count


def prepare_series(n):
    t = jnp.arange(n, dtype=jnp.float32)
    return jnp.sin(t / 3.0) + 0.1 * t


def main():
    series = prepare_series(24)
    set_host_device_count(4)
    n_chains = jax.local_device_count()
    per_chain = jnp.broadcast_to(series, (n_chains,) + series.shape)
    means = jax.pmap(jnp.mean)(per_chain)
    print(means)
    print(f"observed: devices={n_chains}")


main()
