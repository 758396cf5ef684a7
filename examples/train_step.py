"""A small JAX training loop with the mistakes people make when they first add jax.jit."""

from functools import partial

import jax
import jax.numpy as jnp


def init_params(key, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (fan_in, fan_out)) * 0.1, jnp.zeros(fan_out)))
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


@partial(jax.jit, static_argnames=("reduce_axes", "learning_rate"))
def train_step(params, x, y, reduce_axes, lr=0.01):
    def loss_fn(p):
        return jnp.mean((forward(p, x) - y) ** 2, axis=reduce_axes)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    # Converting to a Python float inside jit forces a concrete value.
    return params, {"loss": float(loss)}


def main():
    key = jax.random.PRNGKey(0)
    params = init_params(key, [4, 16, 1])
    x = jnp.ones((32, 4))
    y = jnp.zeros((32, 1))
    for step in range(3):
        # The axes are static, so JAX hashes them: a list cannot be hashed.
        params, metrics = train_step(params, x, y, reduce_axes=[0, 1])
        print(step, metrics["loss"])


if __name__ == "__main__":
    main()
