"""A dropout layer and a residual block as equinox modules. `inference` is a Python bool,
held as a field and overridable per call; `p` is a Python float."""

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, PRNGKeyArray


class Dropout(eqx.Module):
    p: float
    inference: bool

    def __init__(self, p: float = 0.5, inference: bool = False):
        self.p = p
        self.inference = inference

    def __call__(
        self, x: Array, *, key: PRNGKeyArray | None = None, inference: bool | None = None
    ) -> Array:
        if inference is None:
            inference = self.inference
        if isinstance(self.p, (int, float)) and self.p == 0:
            inference = True
        if inference:
            return x
        elif key is None:
            raise RuntimeError("Dropout needs a key when it is not in inference mode.")
        q = 1 - jax.lax.stop_gradient(self.p)
        mask = jax.random.bernoulli(key, q, x.shape)
        return jnp.where(mask, x / q, 0)


class ResidualBlock(eqx.Module):
    linear: eqx.nn.Linear
    dropout: Dropout

    def __init__(self, width: int, *, key: PRNGKeyArray):
        self.linear = eqx.nn.Linear(width, width, key=key)
        self.dropout = Dropout(0.1)

    def __call__(self, x: Array, *, key: PRNGKeyArray | None = None) -> Array:
        return x + self.dropout(jax.nn.relu(self.linear(x)), key=key)
