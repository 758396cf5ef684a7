# source: https://github.com/google/flax/issues/3997
# framework: jax
# shape: class
# expect: error TraceContextError
# hazard: 20 JIT108 the module is closed over by `nnx.jit(counter)` rather than passed in, so the Variable update inside the trace writes into an object outside it
"""An nnx counter module, jitted as a callable object."""
import jax.numpy as jnp
from flax import nnx


class Count(nnx.Variable):
    pass


class Counter(nnx.Module):
    def __init__(self):
        self.count = Count(jnp.array(0))

    def __call__(self):
        self.count.value += 1
        return self.count.value


counter = Counter()
counter()
fast = nnx.jit(counter)
fast()
print(counter.count.value)
