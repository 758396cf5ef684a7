# source: https://github.com/patrick-kidger/equinox/issues/1131
# framework: jax
# shape: class
# expect: ok
"""eqx.filter_jit used directly on a module method: `self` is split into
arrays (traced) and everything else (static), so bool and int fields work."""
import equinox as eqx
import jax
import jax.numpy as jnp


class Projection(eqx.Module):
    weight: jax.Array
    bias: jax.Array
    use_bias: bool
    out_features: int

    def __init__(self, in_features, out_features, use_bias, key):
        self.weight = jax.random.normal(key, (out_features, in_features))
        self.bias = jnp.zeros(out_features)
        self.use_bias = use_bias
        self.out_features = out_features

    @eqx.filter_jit
    def __call__(self, x):
        y = self.weight @ x
        if self.use_bias:
            y = y + self.bias
        padded = jnp.zeros(self.out_features + 1).at[: self.out_features].set(y)
        return padded[: x.shape[0]]


layer = Projection(3, 4, use_bias=True, key=jax.random.PRNGKey(0))
print(layer(jnp.ones(3)))
print(Projection(3, 4, use_bias=False, key=jax.random.PRNGKey(1))(jnp.ones(3)))
