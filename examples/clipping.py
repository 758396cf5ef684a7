"""Python control flow on traced values inside jax.jit."""

import jax
import jax.numpy as jnp


@jax.jit
def soft_clip(x, limit):
    # `limit` is traced: Python cannot decide this `if` while tracing.
    if limit > 0:
        return jnp.tanh(x / limit) * limit
    return x


@jax.jit
def normalise(x):
    norm = jnp.linalg.norm(x)
    return x / norm if norm > 1e-6 else x


def main():
    x = jnp.linspace(-3.0, 3.0, 7)
    print(soft_clip(x, 2.0))
    print(normalise(x))


if __name__ == "__main__":
    main()
