# source: https://github.com/jax-ml/jax/issues/16278
# framework: jax
# shape: multi-file
# expect: observed embedded_constants=1
# hazard: model.py:22 JIT122 the module-level `bigmat` is closed over by the lambda-jitted wrapper and embedded as a constant

# The report ran out of memory compiling `jax.jit(lambda y: foo(y, bigmat))` with a
# 1000 x 800 x 900 array, while `jax.jit(foo)(x, bigmat)` was fine. Smaller sizes
# here: the constant is still embedded, just not large enough to exhaust memory.
import jax
import jax.numpy as jnp

from bigmat_fori_closure.model import bigmat, foo, foo_closed

x = jnp.empty(90)
print(jax.jit(foo)(x, bigmat).shape)
print(jax.jit(foo_closed)(x).shape)
print(f"observed: embedded_constants={len(jax.make_jaxpr(foo_closed)(x).consts)}")
