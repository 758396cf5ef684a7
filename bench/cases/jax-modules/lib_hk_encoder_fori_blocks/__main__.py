# source: https://github.com/google-deepmind/dm-haiku/issues/622
# framework: jax
# shape: multi-file
# expect: error TracerIntegerConversionError
# hazard: encoder.py:24 JIT102 the Python list of blocks is indexed by the fori_loop counter, which is traced whoever calls the encoder
"""The user's script (excluded from linting by jitlint.toml): transform, init and a jitted
apply."""
import haiku as hk
import jax
import jax.numpy as jnp

from .encoder import encode

model = hk.transform(encode)
x = jnp.ones((2, 8))
params = model.init(jax.random.PRNGKey(0), x)
print(jax.jit(model.apply)(params, None, x).shape)
