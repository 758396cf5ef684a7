# source: https://github.com/LouisDesdoigts/dLux/issues/187
# framework: jax
# shape: function
# expect: ok

# Under eqx.filter_jit, Python bools and ints in the arguments are static
# automatically, so the aperture's `occulting` flag and the grid size can be
# used in Python control flow and as a shape.
import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def circular_aperture(radius, npix, occulting):
    coords = jnp.linspace(-1.0, 1.0, npix)
    xx, yy = jnp.meshgrid(coords, coords)
    r = jnp.hypot(xx, yy)
    inside = r < radius
    if occulting:
        inside = ~inside
    return inside.astype(jnp.float32)


if __name__ == "__main__":
    print(circular_aperture(jnp.float32(0.5), 8, True).sum())
    print(circular_aperture(jnp.float32(0.5), 16, False).sum())
