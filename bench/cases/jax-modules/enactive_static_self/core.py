"""Base class shared by the processors."""
import equinox as eqx

from .validators import validate_consciousness_state


class ProcessorBase(eqx.Module):
    state_dim: int

    def _validate_input(self, state):
        if not validate_consciousness_state(state, self.state_dim):
            raise ValueError("invalid consciousness state")
        return state
