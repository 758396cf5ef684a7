# source: https://github.com/patrick-kidger/equinox/issues/798
# framework: jax
# shape: class
# expect: ok
"""Integer hyper-parameters marked eqx.field(static=True) live in the treedef,
so even under a plain jax.jit they are Python ints usable as shapes."""
import equinox as eqx
import jax
import jax.numpy as jnp


class RingBuffer(eqx.Module):
    capacity: int = eqx.field(static=True)
    width: int = eqx.field(static=True)
    scale: jax.Array

    def empty(self):
        return jnp.zeros((self.capacity, self.width))

    def fill(self, x):
        buf = self.empty()
        for i in range(self.capacity):
            buf = buf.at[i].set(self.scale * x * (i + 1))
        return buf


@jax.jit
def fill_buffer(buffer, x):
    return buffer.fill(x)


print(fill_buffer(RingBuffer(capacity=3, width=2, scale=jnp.float32(0.5)), jnp.ones(2)))
