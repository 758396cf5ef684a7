# source: https://github.com/codestella/putting-nerf-on-a-diet/pull/11
# framework: jax
# shape: multi-file
# expect: error TypeError
# hazard: 26 JIT111 the flax Module `model` reaches a non-static parameter of the jitted step
# hazard: render.py:6 JIT103 `n_samples` is a traced argument of the jitted step (not in static_argnums) used as `num`
"""A few steps of NeRF training on random rays."""
import jax
import jax.numpy as jnp

from .model import TinyNeRF
from .train import optimizer, single_step

N_SAMPLES = 16


def main():
    key = jax.random.PRNGKey(0)
    model = TinyNeRF()
    params = model.init(key, jnp.ones((1, 3)))["params"]
    opt_state = optimizer.init(params)
    rays_o = jnp.zeros((8, 3))
    rays_d = jax.random.normal(key, (8, 3))
    target = jnp.full((8, 3), 0.5)
    for _ in range(2):
        params, opt_state, loss = single_step(params, opt_state, rays_o, rays_d, target, (2.0, 6.0), model, N_SAMPLES)
        print(loss)


main()
