# source: https://github.com/FearTheDeer9/AmortizedBayesianOptimization
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: encoding.py:12 JIT101 `jnp.sum` of the indicator constant is a tracer under jit (the update traces the model, which calls this helper)
# hazard: model.py:24 JIT102 a Python list indexed by elements of a traced `argsort` result
"""One update of the haiku parent-set predictor (adapted from the ACBO
surrogate model; see the seed's README)."""
import jax
import jax.numpy as jnp

from .train import CANDIDATES, network, optimizer, update


def main():
    key = jax.random.PRNGKey(0)
    data = jax.random.normal(key, (6, 3))
    expert = jnp.full((len(CANDIDATES),), 1.0 / len(CANDIDATES))
    params = network.init(key, data)
    opt_state = optimizer.init(params)
    params, opt_state, loss = update(params, opt_state, key, data, expert)
    print(loss)


main()
