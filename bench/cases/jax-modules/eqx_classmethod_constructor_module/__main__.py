# source: https://github.com/patrick-kidger/equinox/issues/1133
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: ctf.py:16 JIT101 the class-method constructor validates its arguments with a Python `if`; the script's `eqx.filter_jit(CTF.from_defocus)` passes arrays, which it traces
"""The user's script: the constructor of another module's class, jitted as in the report
(`eqx_classmethod_constructor.py` is the same code in one file)."""
import equinox as eqx
import jax.numpy as jnp

from .ctf import CTF

ctf = CTF.from_defocus(1.2, 1.0)
print(ctf(jnp.ones((2, 2))))
make_ctf = eqx.filter_jit(CTF.from_defocus)
ctf = make_ctf(jnp.float32(1.5), jnp.float32(1.1))
print(ctf(jnp.ones((2, 2))))
