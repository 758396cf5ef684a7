# source: https://github.com/patrick-kidger/equinox/issues/746
# framework: jax
# shape: class
# expect: error ValueError
# hazard: 14 JIT110 a JAX array stored in a static field becomes part of the jit cache key; comparing two of them fails on the second call
"""A data container whose array is marked static so it is "not traced"."""
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr


class Observations(eqx.Module):
    data: jax.Array = eqx.field(static=True)

    def __init__(self, seed):
        self.data = jr.uniform(jr.PRNGKey(seed), (4, 4))


class Model(eqx.Module):
    offset: jax.Array

    def __init__(self, offset):
        self.offset = jnp.asarray(offset)


@eqx.filter_jit
@eqx.filter_value_and_grad
def loss_fn(model, obs):
    return jnp.sum((obs.data - model.offset) ** 2)


model = Model(1.0)
first, second = Observations(0), Observations(1)
loss, grads = loss_fn(model, first)
print(loss)
loss, grads = loss_fn(model, second)
print(loss)
