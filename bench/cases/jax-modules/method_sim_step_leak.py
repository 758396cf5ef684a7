# source: https://github.com/gbionics/jaxsim/issues/43
# framework: jax
# shape: class
# expect: error UnexpectedTracerError
# hazard: 29 JIT108 the jitted bound method stores its traced result on `self`; the leaked tracer is used after the trace
"""A mutable simulator object whose step method is replaced by a jitted
version on the instance."""
import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class SimulatorData:
    time: jax.Array
    q: jax.Array
    dq: jax.Array


class Simulator:
    def __init__(self, step_size):
        self.step_size = step_size
        self.data = SimulatorData(jnp.float32(0.0), jnp.zeros(2), jnp.ones(2))

    def step(self):
        ddq = -jnp.sin(self.data.q)
        dq = self.data.dq + self.step_size * ddq
        q = self.data.q + self.step_size * dq
        self.data = self.data.replace(time=self.data.time + self.step_size, q=q, dq=dq)
        return self.data


sim = Simulator(step_size=0.001)
sim.step = jax.jit(sim.step)
step_data = sim.step()
print(step_data.time)
print(sim.data.time + 1.0)
