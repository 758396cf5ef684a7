"""A small haiku scorer over candidate parent sets."""
import haiku as hk
import jax


class SetScorer(hk.Module):
    def __init__(self, n_candidates, hidden=16, name=None):
        super().__init__(name=name)
        self.n_candidates = n_candidates
        self.hidden = hidden

    def __call__(self, data):
        h = jax.nn.relu(hk.Linear(self.hidden)(data.mean(axis=0)))
        return hk.Linear(self.n_candidates)(h)


def make_network(n_candidates):
    return hk.without_apply_rng(hk.transform(lambda data: SetScorer(n_candidates)(data)))
