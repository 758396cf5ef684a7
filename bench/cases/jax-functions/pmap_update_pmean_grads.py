# source: https://github.com/patrick-kidger/equinox/issues/111
# framework: jax
# shape: function
# expect: ok

# The standard data-parallel idiom: the whole update is pmapped with an axis
# name, and the loss and gradients are averaged with `pmean` over it inside
# the update (through `value_and_grad`).
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def loss_fn(params, x, y):
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@partial(jax.pmap, axis_name="devices")
def update(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    loss = lax.pmean(loss, axis_name="devices")
    grads = lax.pmean(grads, axis_name="devices")
    params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return params, loss


if __name__ == "__main__":
    n = jax.local_device_count()
    params = {"w": jnp.zeros((n, 3)), "b": jnp.zeros((n,))}
    x = jnp.ones((n, 8, 3))
    y = jnp.ones((n, 8))
    for _ in range(3):
        params, loss = update(params, x, y)
    print(loss)
