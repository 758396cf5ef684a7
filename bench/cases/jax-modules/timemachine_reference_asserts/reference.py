"""Reference (pure jax.numpy) implementation of a nonbonded potential."""
import jax.numpy as jnp


def delta_r(ri, rj, box):
    diff = ri - rj
    return diff - box.diagonal() * jnp.round(diff / box.diagonal())


def nonbonded_reference(conf, params, box, lamb, beta, cutoff, runtime_validate=True):
    if runtime_validate:
        assert (box.diagonal() > 2 * cutoff).all(), "box too small for cutoff"
        assert conf.shape == (params.shape[0], 3)
    dij = jnp.linalg.norm(delta_r(conf[:, None, :], conf[None, :, :], box) + 1e-6, axis=-1)
    qij = params[:, 0][:, None] * params[:, 0][None, :]
    mask = (dij < cutoff) & ~jnp.eye(conf.shape[0], dtype=bool)
    energy = jnp.where(mask, qij * jnp.exp(-beta * dij) / dij, 0.0)
    return 0.5 * jnp.sum(energy) * (1.0 - lamb)
