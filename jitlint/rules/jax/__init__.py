"""JAX rules (JIT1xx)."""
