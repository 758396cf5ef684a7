"""Random rotation matrices in the style of an equivariant-networks library. `perturbation`
scales the rotation angle: 0 gives the identity, 1 a uniformly random rotation."""

import jax
import jax.numpy as jnp


def _axis_angle_to_matrix(axis, angle):
    x, y, z = axis[..., 0], axis[..., 1], axis[..., 2]
    zero = jnp.zeros_like(x)
    k = jnp.stack(
        [
            jnp.stack([zero, -z, y], -1),
            jnp.stack([z, zero, -x], -1),
            jnp.stack([-y, x, zero], -1),
        ],
        -2,
    )
    s, c = jnp.sin(angle)[..., None, None], jnp.cos(angle)[..., None, None]
    return jnp.eye(3) + s * k + (1.0 - c) * (k @ k)


def random_rotation(key, perturbation=1.0, num=1):
    if not 0.0 <= perturbation <= 1.0:
        raise ValueError("perturbation must be in the interval [0, 1]")
    axis_key, angle_key = jax.random.split(key)
    axis = jax.random.normal(axis_key, (num, 3))
    axis = axis / jnp.linalg.norm(axis, axis=-1, keepdims=True)
    angle = perturbation * jnp.pi * jax.random.uniform(angle_key, (num,))
    return _axis_angle_to_matrix(axis, angle)
