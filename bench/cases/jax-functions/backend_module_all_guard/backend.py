"""The JAX side of an array-backend package: the module re-exports every jax.numpy name, so
library code written against `B` runs on whichever backend is installed."""

from jax.numpy import *  # noqa: F403
