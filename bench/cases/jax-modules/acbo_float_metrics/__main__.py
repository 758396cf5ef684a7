# source: https://github.com/FearTheDeer9/AmortizedBayesianOptimization
# framework: jax
# shape: multi-file
# expect: error ConcretizationTypeError
# hazard: train.py:27 JIT102 `float()` on the traced loss inside the step that the factory returns jitted
# hazard: train.py:28 JIT102 `float()` on a traced auxiliary loss
# hazard: train.py:29 JIT102 `float()` on a traced auxiliary value
# hazard: train.py:30 JIT102 `float()` on the traced gradient norm
"""A few training steps of the surrogate with metrics logging (adapted from
the ACBO surrogate training step; see the seed's README)."""
import jax
import jax.numpy as jnp

from .model import make_network
from .train import create_train_step


def main():
    key = jax.random.PRNGKey(0)
    data = jax.random.normal(key, (8, 3))
    expert = jnp.array([0.1, 0.6, 0.2, 0.1])
    network = make_network(n_candidates=4)
    params = network.init(key, data)
    train_step, optimizer = create_train_step(network)
    opt_state = optimizer.init(params)
    for step in range(3):
        params, opt_state, metrics = train_step(params, opt_state, data, expert)
        print(step, metrics["total_loss"])


main()
