# source: https://github.com/waymo-research/waymax/issues/14
# framework: jax
# shape: class
# expect: error TracerIntegerConversionError
# hazard: 36 JIT102 `range()` over a property computed from the traced `timestep` field of the state pytree
"""A simulator state dataclass stepped through its logged trajectory under jit."""
import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class SimulatorState:
    positions: jax.Array      # (num_objects, log_length, 2)
    timestep: jax.Array       # scalar int

    @property
    def log_length(self):
        return self.positions.shape[1]

    @property
    def remaining_timesteps(self):
        return self.log_length - 1 - self.timestep

    @property
    def current_positions(self):
        return self.positions[:, self.timestep]


def update_state_by_log(state, num_steps):
    return state.replace(timestep=state.timestep + num_steps)


@jax.jit
def rollout(state):
    for _ in range(state.remaining_timesteps):
        state = update_state_by_log(state, num_steps=1)
    return state


state = SimulatorState(positions=jnp.zeros((3, 5, 2)), timestep=jnp.array(0))
print(rollout(state).timestep)
