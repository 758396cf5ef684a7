"""The environment timeline: when XLA_FLAGS and JAX_* variables are written and read."""
