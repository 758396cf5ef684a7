# source: https://github.com/CDCgov/PyRenew/issues/495
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 16 JIT101 validation `if jnp.any(...): raise` on the traced generation interval inside jit
"""A renewal-model step that checks its arguments the Python way. The check is
right for concrete arrays, but the step is compiled with `jax.jit` (as inside
a sampler), where the generation interval is a tracer; the report asks for
"tracer-aware argument checking"."""
import jax
import jax.numpy as jnp


@jax.jit
def renewal_step(recent_infections, generation_interval, reproduction_number):
    if jnp.any(generation_interval < 0):
        raise ValueError("generation interval must be non-negative")
    pressure = jnp.dot(recent_infections[::-1], generation_interval)
    return reproduction_number * pressure


print(renewal_step(jnp.ones(4), jnp.array([0.1, 0.4, 0.3, 0.2]), 1.3))
