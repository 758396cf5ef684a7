"""Volume rendering along rays."""
import jax.numpy as jnp


def render_rays(model, params, rays_o, rays_d, near, far, n_samples):
    t_vals = jnp.linspace(near, far, n_samples)
    points = rays_o[:, None, :] + rays_d[:, None, :] * t_vals[None, :, None]
    rgb, sigma = model.apply({"params": params}, points)
    deltas = jnp.diff(t_vals, append=far + 1e-3)
    alpha = 1.0 - jnp.exp(-sigma * deltas)
    trans = jnp.cumprod(1.0 - alpha + 1e-10, axis=-1)
    weights = alpha * jnp.concatenate([jnp.ones_like(trans[:, :1]), trans[:, :-1]], axis=-1)
    return jnp.sum(weights[..., None] * rgb, axis=1)
