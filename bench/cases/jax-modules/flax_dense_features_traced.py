# source: https://github.com/enpasos/jax2onnx/issues/101
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 21 JIT103 the layer width comes from `hidden_sizes`, a traced argument of the jitted factory, and becomes a kernel shape
"""A policy-network factory takes its layer sizes as arguments and is jitted
as a whole."""
import flax.linen as nn
import jax
import jax.numpy as jnp


class PolicyMLP(nn.Module):
    hidden_sizes: tuple
    action_size: int

    @nn.compact
    def __call__(self, obs):
        x = obs
        for size in self.hidden_sizes:
            x = nn.Dense(size)(x)
            x = nn.swish(x)
        return nn.Dense(self.action_size)(x)


@jax.jit
def make_policy_params(rng, obs, hidden_sizes):
    net = PolicyMLP(hidden_sizes=hidden_sizes, action_size=2)
    return net.init(rng, obs)


params = make_policy_params(jax.random.PRNGKey(0), jnp.ones((1, 6)), (32, 32))
print(jax.tree_util.tree_map(jnp.shape, params))
