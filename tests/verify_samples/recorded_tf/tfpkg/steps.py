"""A TF package whose tests call a tf.function; jitlint records the calls' specs."""

import tensorflow as tf


@tf.function
def step(x, scale):
    # JIT208: runs once per trace, not once per call; the fix makes it tf.print.
    print("x:", x)
    return x * scale
