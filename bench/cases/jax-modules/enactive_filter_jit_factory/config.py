"""Configuration of the temporal-consciousness processor."""
import equinox as eqx


class TemporalConfig(eqx.Module):
    retention_depth: int = 10
    protention_horizon: int = 5
    primal_impression_width: float = 0.1
    synthesis_decay: float = 0.9
