"""Training batches: arrays in a NamedTuple, structure metadata as tuples."""
from typing import FrozenSet, NamedTuple, Tuple

import jax
import jax.numpy as jnp


class TrainingBatchJAX(NamedTuple):
    observations: jnp.ndarray          # (batch, samples, variables)
    expert_probs: jnp.ndarray          # (batch, candidates)


class BatchMetadata(NamedTuple):
    parent_sets: Tuple[FrozenSet[str], ...]
    variable_order: Tuple[str, ...]
    target: str


def make_batch(key, batch_size=2, samples=5):
    order = ("X", "Y", "Z")
    candidates = (frozenset(), frozenset({"X"}), frozenset({"Y"}), frozenset({"X", "Y"}))
    obs = jax.random.normal(key, (batch_size, samples, len(order)))
    probs = jnp.full((batch_size, len(candidates)), 1.0 / len(candidates))
    return TrainingBatchJAX(obs, probs), BatchMetadata(candidates, order, "Z")
