# source: https://github.com/jax-ml/jax/issues/2854
# framework: jax
# shape: class
# expect: error UnexpectedTracerError
# hazard: 20 JIT108 the loop state (a tracer inside the jitted while loop) is stored on `self` and used after the trace ends
"""A parameter holder that generates a trajectory with a while loop and
remembers the last state for later inspection."""
import jax
import jax.numpy as jnp


class IteratedMap:
    def __init__(self, gain, steps):
        self.gain = gain
        self.steps = steps
        self.last_state = None

    def _body(self, carry):
        i, state = carry
        self.last_state = state
        return i + 1, jnp.tanh(self.gain * state)

    def infer_trajectory(self, x0):
        _, final = jax.lax.while_loop(lambda c: c[0] < self.steps, self._body, (0, x0))
        return final

    def drift(self):
        return jnp.sum(self.last_state)


model = IteratedMap(gain=1.5, steps=4)
final = jax.jit(model.infer_trajectory)(jnp.ones(3))
print(final)
print(model.drift())
