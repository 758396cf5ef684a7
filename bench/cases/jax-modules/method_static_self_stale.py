# source: https://docs.jax.dev/en/latest/_sources/faq.rst
# framework: jax
# shape: class
# expect: observed stale=1
# hazard: 21 JIT117 `self` is static but hashed by identity: after `model.mul = False` the cached trace still uses the old attribute value
"""`self` marked static on a class without __hash__/__eq__; an attribute is
changed between calls."""
from functools import partial

import jax
import jax.numpy as jnp


class CustomClass:
    def __init__(self, x, mul):
        self.x = x
        self.mul = mul

    @partial(jax.jit, static_argnums=0)
    def calc(self, y):
        if self.mul:
            return self.x * y
        return y


model = CustomClass(2, True)
print(model.calc(3.0))
model.mul = False
second = model.calc(3.0)
print(second)
print(f"observed: stale={int(float(second) == 6.0)}")
