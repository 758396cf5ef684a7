"""One step of a Wigner-d recursion in the style of a spherical-harmonics library: the
band limit `L` is static (it fixes the shapes), the degree `el` advances inside the user's
loop. The argument check runs on every step."""

import warnings
from functools import partial

import jax
import jax.numpy as jnp


def check_el_step(dl: jnp.ndarray, L: int, el: int) -> None:
    if L >= 1024:
        warnings.warn("Trapani recursion may be unstable for L >= 1024", stacklevel=2)
    assert dl.shape == (2 * L - 1, 2 * L - 1), "dl has the wrong shape for L"
    assert 0 < el < L, "el must lie between 0 and L"


@partial(jax.jit, static_argnums=(1,))
def compute_el_step(dl: jnp.ndarray, L: int, el: int) -> jnp.ndarray:
    check_el_step(dl, L, el)
    m = jnp.arange(-(L - 1), L)
    weight = jnp.sqrt((el + 1.0) ** 2 - m**2 / (2.0 * L))
    return dl * weight[:, None] / (el + 1.0)
