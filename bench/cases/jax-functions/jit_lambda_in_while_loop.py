# source: https://github.com/jax-ml/jax/issues/9288
# framework: jax
# shape: function
# expect: observed compiles=5
# hazard: 30 JIT113 `jax.jit(lambda ...)` is built anew on every pass of the while loop, so every call misses the compilation cache

# The "don't do this" example from the JIT tutorial, in the lambda form the
# reporter found to really recompile.
import logging

import jax
import jax.numpy as jnp

compiles = []


class _CountCompiles(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("Compiling jit(<lambda>)"):
            compiles.append(record)


def loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted_poorly(x, n):
    i = 0
    while i < n:
        i = jax.jit(lambda v: loop_body(v))(i)
    return x + i


if __name__ == "__main__":
    logging.getLogger("jax").addHandler(_CountCompiles())
    jax.config.update("jax_log_compiles", True)
    print(g_inner_jitted_poorly(10, 5))
    print(f"observed: compiles={len(compiles)}")
