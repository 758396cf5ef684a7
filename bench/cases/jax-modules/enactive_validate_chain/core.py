"""Base processor: validates its input before any subclass logic runs."""
import equinox as eqx

from .validators import validate_consciousness_state


class ProcessorBase(eqx.Module):
    state_dim: int

    def __call__(self, state):
        if not validate_consciousness_state(state, self.state_dim):
            raise ValueError(f"invalid state for a processor of width {self.state_dim}")
        return state
