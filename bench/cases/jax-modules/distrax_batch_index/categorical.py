"""Categorical distribution parameterised by logits."""
import jax
import jax.numpy as jnp

from .distribution import Distribution, to_batch_shape_index


class Categorical(Distribution):
    def __init__(self, logits):
        self.logits = jax.nn.log_softmax(logits, axis=-1)

    @property
    def batch_shape(self):
        return self.logits.shape[:-1]

    def entropy(self):
        return -jnp.sum(jnp.exp(self.logits) * self.logits, axis=-1)

    def __getitem__(self, index):
        index = to_batch_shape_index(self.batch_shape, index)
        return Categorical(logits=self.logits[index])
