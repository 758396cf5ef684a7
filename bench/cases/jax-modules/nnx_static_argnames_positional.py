# source: https://github.com/google/flax/issues/4146
# framework: jax
# shape: class
# expect: ok
"""An nnx model with a train flag; the flag is declared static by name and
passed positionally to nnx.jit."""
from functools import partial

import jax
import jax.numpy as jnp
from flax import nnx


class Classifier(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(4, 2, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x, train):
        h = self.linear(x)
        if train:
            h = self.dropout(h)
        return h


@partial(nnx.jit, static_argnames=("train",))
def forward(model, x, train):
    return model(x, train)


model = Classifier(nnx.Rngs(0, dropout=1))
x = jnp.ones((3, 4))
print(forward(model, x, True).shape)
print(forward(model, x, False).shape)
