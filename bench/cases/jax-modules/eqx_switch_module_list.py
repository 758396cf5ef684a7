# source: https://github.com/patrick-kidger/equinox/issues/119
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 21 JIT110 equinox modules holding arrays are given to `lax.switch` as branch callables, which JAX hashes like static arguments
"""A mixture layer that routes its input to one randomly chosen expert."""
import equinox as eqx
import jax.lax as lax
import jax.numpy as jnp
import jax.random as jr


class RandomRouter(eqx.Module):
    experts: list

    def __init__(self, n_experts, *, key):
        self.experts = [eqx.nn.Linear(2, 2, key=k) for k in jr.split(key, n_experts)]

    def __call__(self, x, *, key):
        i = jr.randint(key, (), minval=0, maxval=len(self.experts))
        return lax.switch(i, self.experts, x)


router = RandomRouter(4, key=jr.PRNGKey(0))
print(router(jnp.array([1.0, -1.0]), key=jr.PRNGKey(1)))
