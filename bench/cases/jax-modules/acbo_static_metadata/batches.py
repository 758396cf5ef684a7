"""Training batches: arrays plus per-example structural metadata."""
from typing import FrozenSet, List, NamedTuple

import jax.numpy as jnp


class TrainingBatch(NamedTuple):
    observations: jnp.ndarray          # (batch, samples, variables)
    expert_probs: jnp.ndarray          # (batch, candidates)
    parent_sets: List[List[FrozenSet[str]]]
    variable_orders: List[List[str]]
    targets: List[str]


def make_batch(key, batch_size=2, samples=5):
    import jax

    order = ["X", "Y", "Z"]
    candidates = [frozenset(), frozenset({"X"}), frozenset({"Y"}), frozenset({"X", "Y"})]
    obs = jax.random.normal(key, (batch_size, samples, len(order)))
    probs = jnp.full((batch_size, len(candidates)), 1.0 / len(candidates))
    return TrainingBatch(
        observations=obs,
        expert_probs=probs,
        parent_sets=[list(candidates) for _ in range(batch_size)],
        variable_orders=[list(order) for _ in range(batch_size)],
        targets=["Z"] * batch_size,
    )
