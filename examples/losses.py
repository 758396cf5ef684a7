"""A loss helper with no jax.jit in sight: `evaluate.py` compiles the call to it.

jitlint lints the files of a run as one project, so it follows the traced call from
`evaluate` into `hinge` and reports the hazard here, naming the caller.
"""

import jax.numpy as jnp


def hinge(scores, labels):
    margins = 1.0 - scores * labels
    # A shortcut that works eagerly, but under jit `margins` is a tracer with no value.
    if margins.max() <= 0:
        return jnp.zeros(())
    return jnp.maximum(margins, 0.0).mean()
