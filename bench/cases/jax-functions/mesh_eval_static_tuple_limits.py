# source: https://github.com/jax-ml/jax/issues/7561
# framework: jax
# shape: function
# expect: ok

# The fixed example: grid limits passed as tuples, which are hashable, to the
# static parameters of the jitted mesh evaluation.
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
    x_limits = (-2, 2)
    y_limits = (-4, 2)
    X, Y, Z = _mesh_eval(target_logpdf, x_limits, y_limits, params, 20)
    return Z.max()


if __name__ == "__main__":
    for p in (1.0, 0.5):
        print(callback(jnp.float32(p)))
