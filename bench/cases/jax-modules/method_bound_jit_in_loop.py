# source: https://github.com/jax-ml/jax/issues/9672
# framework: jax
# shape: class
# expect: observed traces=4
# hazard: 34 JIT113 `jax.jit(sim.step)` builds a new jitted bound method on every iteration: one trace per call
"""Wrapping a bound method with jit inside the loop that calls it."""
import jax
import jax.numpy as jnp
from jax import monitoring

TRACES = {}


def _count_traces(event, duration, fun_name=None, **kwargs):
    if event == "/jax/core/compile/jaxpr_trace_duration":
        TRACES[fun_name] = TRACES.get(fun_name, 0) + 1


monitoring.register_event_duration_secs_listener(_count_traces)


class Diffusion:
    def __init__(self, rate):
        self.rate = rate

    def step(self, u):
        lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2 * u
        return u + self.rate * lap


sim = Diffusion(0.1)
u = jnp.zeros(8).at[4].set(1.0)
for _ in range(4):
    u = jax.jit(sim.step)(u)

print(u)
print(f"observed: traces={TRACES.get('step', 0)}")
