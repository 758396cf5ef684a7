# source: https://github.com/exoplanet-dev/jaxoplanet/issues/234
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: surface.py:26 JIT101 the `assert` in `normalize` converts a comparison of the map's coefficients, which the user's jitted model builds from traced parameters
"""The user's light-curve model (excluded from linting by jitlint.toml): the surface map is
built inside the jitted function from sampled parameters, as in the report."""
import jax
import jax.numpy as jnp

from .surface import Surface, Ylm


@jax.jit
def light_curve(y10, inc):
    y = Ylm.from_dense(jnp.array([1.0, 0.0, y10, 0.0]))
    return Surface(y=y, inc=inc).flux()


print(light_curve(0.1, 1.2))
