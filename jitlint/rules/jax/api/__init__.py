"""JAX rules about the runtime APIs around traced code (JIT115, JIT118, JIT119, JIT123): donated
buffers, host callbacks, collective axis names, weak-typed state fed back to a jitted step."""
