# source: https://github.com/liesel-devs/liesel/pull/272
# framework: jax
# shape: function
# expect: ok

# A sampling engine that donates its model state to the jitted kernel step
# and keeps only what the step returns: the donated name is bound to the
# result every time, so no deleted buffer is read.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=(0,))
def kernel_step(state, key):
    noise = jax.random.normal(key, state["position"].shape)
    position = state["position"] + 0.1 * noise
    return {"position": position, "count": state["count"] + 1}


def run(num_steps):
    state = {"position": jnp.zeros(3), "count": jnp.array(0)}
    key = jax.random.key(0)
    for _ in range(num_steps):
        key, subkey = jax.random.split(key)
        state = kernel_step(state, subkey)
    return state


if __name__ == "__main__":
    final = run(5)
    print(final["count"], final["position"])
