"""Hyperparameters of the guidance optimizer, passed around as a pytree."""
import flax.struct


@flax.struct.dataclass
class GuidanceParams:
    hand_weight: float = 1.0
    smoothness_weight: float = 0.1
    foot_skate_weight: float = 0.3
    lm_damping: float = 1e-3
    lm_iters: int = 5
    use_hands: bool = True

    @staticmethod
    def defaults(mode):
        if mode == "hands":
            return GuidanceParams(hand_weight=5.0, lm_iters=8)
        return GuidanceParams()
