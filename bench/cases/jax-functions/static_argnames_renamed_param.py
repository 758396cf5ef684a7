# source: https://github.com/jax-ml/jax/issues/10046
# framework: jax
# shape: function
# expect: error ValueError
# hazard: 15 JIT112 static_argnames names `num_steps`, but the parameter was renamed to `n_steps`

# An Euler integrator whose step-count parameter was renamed while the jit
# decorator kept the old name.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("num_steps",))
def integrate(y0, dt, n_steps):
    def body(i, y):
        return y + dt * (-0.5 * y)

    return jax.lax.fori_loop(0, n_steps, body, y0)


if __name__ == "__main__":
    print(integrate(jnp.ones(2), 0.1, n_steps=10))
