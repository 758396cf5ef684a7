# source: https://github.com/jax-ml/jax/pull/6501
# framework: jax
# shape: function
# expect: ok

# jnp.nonzero and one-argument jnp.where inside jit with a static `size=`
# (and a fill value for the padding).
import jax
import jax.numpy as jnp


@jax.jit
def first_active(x):
    (idx,) = jnp.nonzero(x, size=3, fill_value=-1)
    (pos,) = jnp.where(x > 0, size=x.shape[0], fill_value=0)
    return idx, pos


if __name__ == "__main__":
    print(first_active(jnp.array([0, 1, 1, 0, 0, 1])))
