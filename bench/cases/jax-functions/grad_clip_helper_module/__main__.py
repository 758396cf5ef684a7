# source: https://github.com/google/flax/issues/859
# framework: jax
# shape: multi-file
# expect: ok

# A jitted train step that clips gradients with a helper from another module
# of the package: the helper uses jnp.where for the value-dependent choice and
# only branches on `max_norm is None`.
import jax
import jax.numpy as jnp

from grad_clip_helper_module.clipping import clip_grad_norm, describe


@jax.jit
def train_step(params, x, y):
    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    grads = jax.grad(loss_fn)(params)
    grads = clip_grad_norm(grads, 1.0)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def main():
    params = {"w": jnp.ones((3, 1)), "b": jnp.zeros(1)}
    x = jnp.ones((4, 3)) * 10.0
    y = jnp.zeros((4, 1))
    for _ in range(2):
        params = train_step(params, x, y)
    print(describe(params), params["b"])


main()
