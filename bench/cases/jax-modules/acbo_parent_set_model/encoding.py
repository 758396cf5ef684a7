"""Encodes candidate parent sets as indicator vectors and feature vectors."""
import jax.numpy as jnp


def parent_set_indicators(parent_set, variable_order):
    return jnp.array([1.0 if v in parent_set else 0.0 for v in variable_order])


def encode_parent_set(parent_set, variable_order, node_embeddings):
    indicators = parent_set_indicators(parent_set, variable_order)
    is_empty = jnp.sum(indicators) == 0
    if is_empty:
        return jnp.zeros(node_embeddings.shape[-1])
    weights = indicators / jnp.sum(indicators)
    return weights @ node_embeddings
