# source: https://github.com/jax-ml/jax/issues/1723
# framework: jax
# shape: function
# expect: ok

# A ring shift across devices with `ppermute`; the axis name is given to
# pmap by position (`jax.pmap(shift, "x")`), which binds it just as
# `axis_name="x"` does.
import jax
import jax.numpy as jnp

N = jax.local_device_count()


def shift(x):
    perm = [(i, (i + 1) % N) for i in range(N)]
    return jax.lax.ppermute(x, "x", perm)


if __name__ == "__main__":
    print(jax.pmap(shift, "x")(jnp.arange(float(N))))
