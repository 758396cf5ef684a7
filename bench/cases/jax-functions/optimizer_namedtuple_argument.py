# source: https://github.com/jax-ml/jax/issues/953
# framework: jax
# shape: function
# expect: error TypeError
# hazard: 48 JIT111 `optimizer` is a NamedTuple of Python functions passed to a non-static parameter of the jitted episode

# A DDPG-style episode runner that receives the optimizer triple
# (init, update, get_params) bundled in a NamedTuple.
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp


class Optimizer(NamedTuple):
    init: Callable[[Any], Any]
    update: Callable[[int, Any, Any], Any]
    get: Callable[[Any], Any]


def sgd(step_size):
    def init(params):
        return params

    def update(i, g, state):
        return state - step_size * g

    def get(state):
        return state

    return Optimizer(init, update, get)


def episode(optimizer, opt_state, observations):
    def loss(p):
        return jnp.sum((observations @ p) ** 2)

    for i in range(3):
        g = jax.grad(loss)(optimizer.get(opt_state))
        opt_state = optimizer.update(i, g, opt_state)
    return opt_state


if __name__ == "__main__":
    opt = sgd(1e-2)
    state = opt.init(jnp.ones(2))
    obs = jnp.array([[1.0, 0.5], [0.2, 0.3]])
    print(jax.jit(episode)(opt, state, obs))
