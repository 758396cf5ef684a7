"""Haiku model scoring candidate parent sets of a target variable."""
import haiku as hk
import jax
import jax.numpy as jnp

from .encoding import encode_parent_set


class ParentSetPredictor(hk.Module):
    def __init__(self, hidden=16, top_k=2, name=None):
        super().__init__(name=name)
        self.hidden = hidden
        self.top_k = top_k

    def __call__(self, data, variable_order, target, candidate_sets):
        # data: (samples, variables) -> one embedding per variable
        node_embeddings = hk.Linear(self.hidden)(data.T)
        target_emb = node_embeddings[variable_order.index(target)]
        set_features = jnp.stack(
            [encode_parent_set(ps, variable_order, node_embeddings) for ps in candidate_sets]
        )
        scores = hk.Linear(1)(jnp.tanh(set_features + target_emb))[:, 0]
        top_k_indices = jnp.argsort(scores)[-self.top_k:]
        top_sets = [candidate_sets[i] for i in top_k_indices]
        return scores, top_sets
