# source: https://github.com/FearTheDeer9/AmortizedBayesianOptimization
# framework: jax
# shape: multi-file
# expect: ok
"""The fixed variant of the ACBO surrogate step: metadata is a hashable
NamedTuple of tuples/frozensets passed as a static argument, arrays travel in
a NamedTuple pytree (see the seed's README)."""
import jax

from .batches import make_batch
from .train import init_params, make_train_step


def main():
    key = jax.random.PRNGKey(0)
    batch, metadata = make_batch(key)
    params = init_params(key, n_vars=3, n_candidates=len(metadata.parent_sets))
    train_step, optimizer = make_train_step()
    opt_state = optimizer.init(params)
    for step in range(3):
        params, opt_state, metrics = train_step(params, opt_state, batch, metadata)
        print(step, float(metrics["loss"]), metrics["n_candidates"])


main()
