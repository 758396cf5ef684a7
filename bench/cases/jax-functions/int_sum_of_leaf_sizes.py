# source: https://github.com/patrick-kidger/equinox/issues/198
# framework: jax
# shape: function
# expect: ok

# Count parameters by summing leaf sizes (static ints) and use the total as
# a buffer size inside a jitted function. `int(sum(...))` only touches .size.
import jax
import jax.numpy as jnp


@jax.jit
def flatten_params(params):
    leaves = jax.tree_util.tree_leaves(params)
    n_params = int(sum(leaf.size for leaf in leaves))
    buf = jnp.zeros(n_params)
    offset = 0
    for leaf in leaves:
        buf = jax.lax.dynamic_update_slice(buf, leaf.ravel(), (offset,))
        offset += leaf.size
    return buf


if __name__ == "__main__":
    params = {"w": jnp.ones((3, 2)), "b": jnp.arange(2.0), "scale": jnp.float32(0.5)}
    print(flatten_params(params))
