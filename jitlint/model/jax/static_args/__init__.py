"""What `jax.jit` needs of the arguments it does not trace and of those it does: which
values visibly are not arrays (nonarray.py), which static values JAX cannot hash
(hashable.py)."""
