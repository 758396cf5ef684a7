# source: https://github.com/LouisDesdoigts/dLux/issues/260
# framework: jax
# shape: multi-file
# expect: error ConcretizationTypeError
# hazard: coordinates.py:8 JIT103 the pixel count reaches `arange` as a traced operand of the user's `lax.cond`
"""The user's detector layer (excluded from linting by jitlint.toml) picks its sampling grid
with `lax.cond`, passing the pixel count as the operand, as in the report."""
import jax

from .coordinates import nd_coords


def downsample_grid(oversample, npixels):
    return jax.lax.cond(
        oversample > 1,
        lambda n: nd_coords(n, pixel_scales=0.5).sum(),
        lambda n: nd_coords(n, pixel_scales=1.0).sum(),
        (npixels,),
    )


print(downsample_grid(2, 8))
