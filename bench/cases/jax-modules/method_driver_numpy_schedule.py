# source: https://github.com/netket/netket/issues/908
# framework: jax
# shape: class
# expect: error TracerArrayConversionError
# hazard: 15 JIT104 `np.cos` on the step count, which optax passes in as a tracer inside the driver's jitted update
"""A variational driver with a user-supplied learning-rate schedule."""
import jax
import jax.numpy as jnp
import numpy as np
import optax


def sgd_with_restarts(base_lr, restart=100):
    def schedule(n):
        return (1 + np.cos(np.pi * (n % restart) / restart)) * base_lr
    return schedule


class VariationalDriver:
    def __init__(self, energy_fn, params, optimizer):
        self.energy_fn = energy_fn
        self.params = params
        self.optimizer = optimizer
        self.opt_state = optimizer.init(params)
        self._update = jax.jit(self._update_impl)

    def _update_impl(self, params, opt_state):
        energy, grads = jax.value_and_grad(self.energy_fn)(params)
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, energy

    def run(self, n_iter):
        for _ in range(n_iter):
            self.params, self.opt_state, energy = self._update(self.params, self.opt_state)
        return energy


driver = VariationalDriver(
    energy_fn=lambda p: jnp.sum((p - 1.0) ** 2),
    params=jnp.zeros(4),
    optimizer=optax.sgd(sgd_with_restarts(0.05)),
)
print(driver.run(3))
