# source: https://github.com/google/flax/issues/4845
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 18 JIT102 an nnx.List of modules indexed by the traced time step `t`
"""A time-conditioned model keeps one linear layer per time step."""
import jax
import jax.numpy as jnp
from flax import nnx


class PerStepModel(nnx.Module):
    def __init__(self, indim, outdim, t_max, rngs):
        self.t_max = t_max
        self.models = nnx.List([nnx.Linear(indim, outdim, rngs=rngs) for _ in range(t_max)])

    def __call__(self, x, t):
        return self.models[t](x)


@nnx.jit
def predict(model, x, t):
    return model(x, t)


model = PerStepModel(indim=10, outdim=5, t_max=3, rngs=nnx.Rngs(0))
x = jax.random.normal(jax.random.PRNGKey(0), (1, 10))
print(predict(model, x, jnp.array(1)).shape)
