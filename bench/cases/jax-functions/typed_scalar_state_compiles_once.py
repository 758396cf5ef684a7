# source: https://github.com/jax-ml/jax/issues/4274
# framework: jax
# shape: function
# expect: ok

# The advice from the thread: give the scalars a training loop carries through a jitted
# step an explicit type. The learning rate is a NumPy float32 (strong from the start) and
# the step counter is a Python int the step only increments (it stays weak), so the step
# compiles once.
import logging

import jax
import jax.numpy as jnp
import numpy as np

compiles = []


class _CountCompiles(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("Compiling jit(sgd_step)"):
            compiles.append(record)


@jax.jit
def sgd_step(state, x, y):
    w, lr, step = state
    grad = 2.0 * x.T @ (x @ w - y) / y.shape[0]
    return (w - lr * grad, lr * 0.99, step + 1)


if __name__ == "__main__":
    logging.getLogger("jax").addHandler(_CountCompiles())
    jax.config.update("jax_log_compiles", True)
    key_x, key_y = jax.random.split(jax.random.PRNGKey(0))
    x = jax.random.normal(key_x, (32, 4))
    y = jax.random.normal(key_y, (32,))
    state = (jnp.zeros(4), np.float32(0.1), 0)
    for _ in range(3):
        state = sgd_step(state, x, y)
    assert len(compiles) == 1, len(compiles)
    print(state[1], state[2])
