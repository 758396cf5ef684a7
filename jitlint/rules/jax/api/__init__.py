"""JAX rules about the runtime APIs around traced code (JIT115, JIT118, JIT119): donated
buffers, host callbacks, collective axis names."""
