"""A small package whose tests call a jitted function; jitlint records the calls' specs."""

from functools import partial

import jax
import jax.numpy as jnp

from . import scale as _scale


@partial(jax.jit, static_argnames=("axes",))
def total(x, weights, axes):
    return (x * weights).sum(axis=axes) * _scale.FACTOR


def report(x):
    # JIT110: a list for a static argument; the fix makes it a tuple.
    return total(x, jnp.ones(x.shape), axes=[0, 1])
