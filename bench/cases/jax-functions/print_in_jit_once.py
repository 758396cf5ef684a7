# source: https://docs.jax.dev/en/latest/tracing.html
# framework: jax
# shape: function
# expect: observed prints=1
# hazard: 19 JIT107 `print` inside the jitted function runs once while tracing, not on each of the three calls

# Per-call progress printing inside a jitted update. The author expects one
# line per call.
import contextlib
import io

import jax
import jax.numpy as jnp


@jax.jit
def update(params, grads, lr):
    new_params = params - lr * grads
    print("updated params:", new_params)
    return new_params


if __name__ == "__main__":
    buf = io.StringIO()
    p = jnp.ones(3)
    with contextlib.redirect_stdout(buf):
        for step in range(3):
            p = update(p, jnp.full(3, 0.1), 0.5)
    lines = [l for l in buf.getvalue().splitlines() if l.startswith("updated params:")]
    print(f"observed: prints={len(lines)}")
