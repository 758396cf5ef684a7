# source: https://github.com/google/flax/issues/4085
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: model.py:14 JIT101 `not training` where `training` is a traced argument of the jitted train_step
# hazard: model.py:16 JIT101 the same `not` on the traced flag in the second dropout layer
"""Fits the MLP for a few steps with dropout enabled."""
import jax
import jax.numpy as jnp

from .train import model, optimizer, train_step


def main():
    key = jax.random.PRNGKey(114)
    X = jax.random.normal(key, (16, 4))
    y = X @ jnp.ones((4, 1))
    params = model.init(key, X[0], False)
    opt_state = optimizer.init(params)
    for i in range(3):
        key, sub = jax.random.split(key)
        params, opt_state, loss = train_step(params, opt_state, X, y, True, sub)
        print(i, loss)


main()
