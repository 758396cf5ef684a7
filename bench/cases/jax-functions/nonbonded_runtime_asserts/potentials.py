"""Reference pairwise potential, first written against NumPy arrays."""
import jax.numpy as jnp


def delta_r(ri, rj, box):
    diff = ri - rj
    box_diag = jnp.diag(box)
    return diff - box_diag * jnp.floor(diff / box_diag + 0.5)


def nonbonded_energy(conf, charges, box, cutoff):
    # Input validation kept from the NumPy version.
    assert conf.shape[0] == charges.shape[0]
    assert conf.ndim == 2 and conf.shape[1] == 3
    assert jnp.all(jnp.diag(box) > 2 * cutoff), "box too small for cutoff"
    dr = delta_r(conf[:, None, :], conf[None, :, :], box)
    dij = jnp.sqrt(jnp.sum(dr ** 2, axis=-1) + jnp.eye(conf.shape[0]))
    qij = charges[:, None] * charges[None, :]
    mask = (dij < cutoff) & ~jnp.eye(conf.shape[0], dtype=bool)
    return 0.5 * jnp.sum(jnp.where(mask, qij / dij, 0.0))
