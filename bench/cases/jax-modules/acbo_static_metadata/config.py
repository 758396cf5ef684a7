"""Training configuration for the parent-set surrogate."""
from dataclasses import dataclass


@dataclass(frozen=True)
class SurrogateConfig:
    learning_rate: float = 1e-2
    weight_decay: float = 1e-4
    hidden: int = 16
