# source: https://github.com/google/objax/pull/92
# framework: jax
# shape: class
# expect: error TracerBoolConversionError
# hazard: 18 JIT101 `or` on the `momentum` override, a traced argument of the jitted update
"""A momentum optimizer object whose update can override the momentum."""
import jax
import jax.numpy as jnp


class Momentum:
    def __init__(self, params, momentum=0.9):
        self.momentum = momentum
        self.velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
        self._jit_update = jax.jit(self._update)

    def _update(self, lr, grads, params, velocity, momentum=None):
        momentum = momentum or self.momentum
        velocity = jax.tree_util.tree_map(lambda v, g: momentum * v + g, velocity, grads)
        params = jax.tree_util.tree_map(lambda p, v: p - lr * v, params, velocity)
        return params, velocity

    def __call__(self, lr, grads, params, momentum=None):
        params, self.velocity = self._jit_update(lr, grads, params, self.velocity, momentum)
        return params


params = {"w": jnp.ones(3), "b": jnp.zeros(())}
grads = {"w": jnp.full(3, 0.5), "b": jnp.ones(())}
opt = Momentum(params)
params = opt(0.1, grads, params)
params = opt(0.1, grads, params, momentum=0.5)
print(params)
