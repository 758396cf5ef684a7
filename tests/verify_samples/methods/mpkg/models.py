from functools import partial

import equinox as eqx
import jax


class Scale(eqx.Module):
    """An equinox module whose `__call__` branches on a traced value."""

    w: jax.Array

    @jax.jit
    def __call__(self, x):
        y = x * self.w
        if y.sum() > 0:
            return y
        return -y


class Gate(eqx.Module):
    w: jax.Array

    @eqx.filter_jit
    def __call__(self, x):
        return max((x * self.w).sum(), 0.0)


class Counter:
    """A plain class with a jitted method; `self` is static, so it hashes by value."""

    def __init__(self, scale):
        self.scale = scale

    def __hash__(self):
        return hash(self.scale)

    def __eq__(self, other):
        return isinstance(other, Counter) and other.scale == self.scale

    @partial(jax.jit, static_argnums=0)
    def total(self, x):
        return max(x.sum() * self.scale, 0.0)
