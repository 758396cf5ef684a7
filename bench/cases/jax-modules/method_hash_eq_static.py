# source: https://github.com/jax-ml/jax/issues/39858
# framework: jax
# shape: class
# expect: ok
"""`self` as a static argument, with __hash__ and __eq__ defined over the
(hashable) attributes, as the JAX FAQ recommends."""
from functools import partial

import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, x: float, mul: bool):
        self.x = x
        self.mul = mul

    @partial(jax.jit, static_argnums=0)
    def calc(self, y):
        if self.mul:
            return self.x * y
        return y

    def __hash__(self):
        return hash((self.x, self.mul))

    def __eq__(self, other):
        return isinstance(other, Scaler) and (self.x, self.mul) == (other.x, other.mul)


c = Scaler(2.0, True)
print(c.calc(jnp.arange(3.0)))
print(Scaler(2.0, False).calc(jnp.arange(3.0)))
