# source: https://github.com/FearTheDeer9/AmortizedBayesianOptimization
# framework: jax
# shape: multi-file
# expect: error ValueError
# hazard: 24 JIT110 the batch's Python lists go to the static positions (5, 6, 7) of the jitted step built in train.py: lists cannot be hashed
"""Trains the parent-set surrogate for a few steps (adapted from the ACBO
surrogate training step; see the seed's README)."""
import jax

from .batches import make_batch
from .config import SurrogateConfig
from .train import create_surrogate_train_step, init_params


def main():
    config = SurrogateConfig()
    key = jax.random.PRNGKey(0)
    batch = make_batch(key)
    params = init_params(key, n_vars=3, n_candidates=4, hidden=config.hidden)
    train_step, optimizer = create_surrogate_train_step(config)
    opt_state = optimizer.init(params)
    for step in range(2):
        key, sub = jax.random.split(key)
        params, opt_state, loss = train_step(params, opt_state, batch.observations, batch.expert_probs, sub, batch.parent_sets, batch.variable_orders, batch.targets)
        print(step, loss)


main()
