"""The recursion step after the fix: the check keeps only what is known while tracing, the
static band limit and the shape of `dl`; the bound on the traced degree is dropped."""

import warnings
from functools import partial

import jax
import jax.numpy as jnp


def check_el_step(dl: jnp.ndarray, L: int) -> None:
    if L >= 1024:
        warnings.warn("Trapani recursion may be unstable for L >= 1024", stacklevel=2)
    assert dl.shape == (2 * L - 1, 2 * L - 1), "dl has the wrong shape for L"


@partial(jax.jit, static_argnums=(1,))
def compute_el_step(dl: jnp.ndarray, L: int, el: int) -> jnp.ndarray:
    check_el_step(dl, L)
    m = jnp.arange(-(L - 1), L)
    weight = jnp.sqrt((el + 1.0) ** 2 - m**2 / (2.0 * L))
    return dl * weight[:, None] / (el + 1.0)
