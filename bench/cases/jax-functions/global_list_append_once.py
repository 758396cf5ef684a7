# source: https://github.com/jax-ml/jax/pull/5905
# framework: jax
# shape: function
# expect: observed appends=1
# hazard: 16 JIT107|JIT108 `seen_inputs.append(x)` writes to a module-level list from inside the jitted function: it runs at trace time only

# Recording every input seen by a jitted log2, as in the JAX-101 jit notebook.
import jax
import jax.numpy as jnp

seen_inputs = []


@jax.jit
def log2(x):
    seen_inputs.append(x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


if __name__ == "__main__":
    for v in (3.0, 4.0, 5.0):
        log2(v)
    print(f"observed: appends={len(seen_inputs)}")
