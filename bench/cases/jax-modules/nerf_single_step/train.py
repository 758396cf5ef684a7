"""One optimisation step of the radiance field."""
import jax
import jax.numpy as jnp
import optax
from jax import jit

from .render import render_rays

optimizer = optax.adam(5e-4)


def single_step_wojit(params, opt_state, rays_o, rays_d, target, near_far, model, n_samples):
    near, far = near_far

    def loss_fn(p):
        rgb = render_rays(model, p, rays_o, rays_d, near, far, n_samples)
        return jnp.mean((rgb - target) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optimizer.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


single_step = jit(single_step_wojit)
