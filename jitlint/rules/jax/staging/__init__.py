"""JAX rules about what a staged-out (compiled) function holds: framework modules under raw
transformations (JIT120), closed-over constants (JIT122)."""
