# source: https://github.com/jax-ml/jax/issues/13148
# framework: jax
# shape: function
# expect: ok

# XLA_FLAGS written at the very top of the entry script, before JAX is
# imported, as the maintainer recommends; the flag takes effect.
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp


def main():
    n = jax.local_device_count()
    assert n == 4, n
    xs = jnp.arange(n * 2.0).reshape(n, 2)
    print(jax.pmap(lambda v: v * 2)(xs))


if __name__ == "__main__":
    main()
