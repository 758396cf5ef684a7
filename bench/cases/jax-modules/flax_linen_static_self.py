# source: https://github.com/d2l-ai/d2l-en/pull/2347
# framework: jax
# shape: class
# expect: ok
"""A linen classifier whose loss/accuracy methods are jitted with the module
(`self`) and a flag static: linen Modules are frozen dataclasses and hash."""
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp


class Classifier(nn.Module):
    num_outputs: int

    @nn.compact
    def __call__(self, X):
        return nn.Dense(self.num_outputs)(X)

    @partial(jax.jit, static_argnums=(0, 4))
    def loss(self, params, X, Y, averaged=True):
        Y_hat = self.apply(params, X)
        nll = -jnp.take_along_axis(jax.nn.log_softmax(Y_hat), Y[:, None], axis=1)[:, 0]
        return nll.mean() if averaged else nll

    @partial(jax.jit, static_argnums=(0, 4))
    def accuracy(self, params, X, Y, averaged=True):
        compare = (self.apply(params, X).argmax(axis=1) == Y).astype(jnp.float32)
        return compare.mean() if averaged else compare


model = Classifier(num_outputs=3)
X = jnp.ones((4, 5))
Y = jnp.array([0, 1, 2, 1])
params = model.init(jax.random.PRNGKey(0), X)
print(model.loss(params, X, Y), model.accuracy(params, X, Y, False))
