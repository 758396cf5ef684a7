# source: https://github.com/jax-ml/jax/issues/1333
# framework: jax
# shape: function
# expect: observed x64=0
# hazard: 14 JIT302 JAX_ENABLE_X64 is written to os.environ after `import jax`, when the option has already been read, so it has no effect

# A tensor-network test helper that wants double precision and sets the
# environment variable suggested in the thread, but from inside the script.
import os

import jax
import jax.numpy as jnp

os.environ["JAX_ENABLE_X64"] = "1"


def contract(a, b):
    return jnp.tensordot(a, b, axes=1)


if __name__ == "__main__":
    a = jnp.ones((2, 2), dtype=jnp.float64)
    out = contract(a, a)
    print(out.dtype)
    print(f"observed: x64={int(out.dtype == jnp.float64)}")
