"""Pixel coordinate grids in the style of an optics library. `npixels` sets how many
coordinates there are, so it must be a concrete int."""

import jax.numpy as np


def pixel_coords(n, offset, scale):
    pix = np.arange(n) - (n - 1) / 2.0
    pix *= scale
    pix -= offset
    return pix


def nd_coords(npixels, pixel_scales=1.0, offsets=0.0, indexing="xy"):
    if isinstance(npixels, int):
        npixels = (npixels,)
    if not isinstance(pixel_scales, tuple):
        pixel_scales = (pixel_scales,) * len(npixels)
    if not isinstance(offsets, tuple):
        offsets = (offsets,) * len(npixels)
    axes = [pixel_coords(n, o, s) for n, o, s in zip(npixels, offsets, pixel_scales)]
    if len(axes) == 1:
        return axes[0]
    return np.array(np.meshgrid(*axes, indexing=indexing))
