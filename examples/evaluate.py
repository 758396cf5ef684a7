"""Compiles a helper imported from another file (see losses.py)."""

import jax
import jax.numpy as jnp
from losses import hinge


@jax.jit
def evaluate(scores, labels):
    return hinge(scores, labels)


if __name__ == "__main__":
    print(evaluate(jnp.array([0.5, -2.0]), jnp.array([1.0, -1.0])))
