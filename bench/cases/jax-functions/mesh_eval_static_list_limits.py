# source: https://github.com/jax-ml/jax/issues/7561
# framework: jax
# shape: function
# expect: error ValueError
# hazard: 32 JIT110 `x_limits`/`y_limits` are Python lists passed to parameters declared in static_argnums

# Evaluate a 2-D density on a grid for plotting; the grid limits and tick
# count are static so the grid has a static shape.
from functools import partial

import jax
import jax.numpy as jnp
from jax.scipy.stats import norm


def target_logpdf(xy):
    return norm.logpdf(xy[..., 0]) + norm.logpdf(xy[..., 1], 0.5, 0.7)


@partial(jax.jit, static_argnums=(0, 1, 2, 4))
def _mesh_eval(func, x_limits, y_limits, params, num_ticks):
    xs = jnp.linspace(x_limits[0], x_limits[1], num_ticks)
    ys = jnp.linspace(y_limits[0], y_limits[1], num_ticks)
    X, Y = jnp.meshgrid(xs, ys)
    grid = jnp.stack([X, Y], axis=-1) * params
    return X, Y, func(grid)


def callback(params):
    x_limits = [-2, 2]
    y_limits = [-4, 2]
    X, Y, Z = _mesh_eval(target_logpdf, x_limits, y_limits, params, 20)
    return Z.max()


if __name__ == "__main__":
    print(callback(jnp.float32(1.0)))
