"""Gradient utilities shared by the training scripts."""
import jax
import jax.numpy as jnp


def global_norm(grads):
    leaves = jax.tree_util.tree_leaves(grads)
    return jnp.sqrt(sum(jnp.sum(jnp.square(g)) for g in leaves))


def clip_grad_norm(grads, max_norm):
    if max_norm is None:
        return grads
    norm = global_norm(grads)
    clip = lambda g: jnp.where(norm < max_norm, g, g * max_norm / (norm + 1e-6))
    return jax.tree_util.tree_map(clip, grads)


def describe(grads):
    shapes = {k: v.shape for k, v in grads.items()}
    n = sum(v.size for v in grads.values())
    return f"{len(shapes)} tensors, {n} values"
