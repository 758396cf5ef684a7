# source: https://github.com/jax-ml/jax/issues/2515
# framework: jax
# shape: function
# expect: observed compiles=4
# hazard: 31 JIT113 `jax.jit(jax.grad(...))` builds a new function object on every call of `dev_likelihood`, which a minimiser calls in a loop

# A gradient callback handed to an external minimiser; each callback
# invocation wraps the likelihood afresh.
import logging

import jax
import jax.numpy as jnp
import numpy as np

compiles = []


class _CountCompiles(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        if msg.startswith("Compiling jit(") and "neg_log_likelihood" in msg:
            compiles.append(record)


def neg_log_likelihood(sigma, mu, data):
    z = (data - mu) / sigma
    return jnp.sum(0.5 * z ** 2 + jnp.log(sigma * jnp.sqrt(2.0 * jnp.pi)))


def dev_likelihood(pars, data):
    return jax.jit(jax.grad(neg_log_likelihood, argnums=(0, 1)))(pars[0], pars[1], data)


if __name__ == "__main__":
    logging.getLogger("jax").addHandler(_CountCompiles())
    jax.config.update("jax_log_compiles", True)
    data = jnp.asarray(np.random.default_rng(0).normal(100.0, 5.0, 50), jnp.float32)
    pars = (5.0, 100.0)
    for _ in range(4):
        g = dev_likelihood(pars, data)
        pars = (pars[0] - 1e-3 * float(g[0]), pars[1] - 1e-3 * float(g[1]))
    print(f"observed: compiles={len(compiles)}")
