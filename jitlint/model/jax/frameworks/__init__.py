"""What the neural-network frameworks built on JAX do to the functions and modules they are
given: which bodies their `apply`/`init` run, and with which arguments (haiku.py)."""
