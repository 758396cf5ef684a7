"""Example inputs for `jitlint --fix --unsafe-fixes --verify examples/` (see pyproject.toml).

Keys are "module:function"; each value is a list of (args, kwargs) examples. Arguments may be
concrete arrays, `jax.ShapeDtypeStruct`s or `tf.TensorSpec`s; the verifier compiles from them
and, for the eager comparison, draws seeded random arrays for the specs.
"""

import jax
import jax.numpy as jnp


def _params(key, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (fan_in, fan_out)) * 0.1, jnp.zeros(fan_out)))
    return params


_PARAMS = _params(jax.random.PRNGKey(0), [4, 16, 1])

EXAMPLES = {
    "examples.train_step:train_step": [
        ((_PARAMS, jnp.ones((32, 4)), jnp.zeros((32, 1))), {"reduce_axes": (0, 1)}),
        ((_PARAMS, jax.ShapeDtypeStruct((8, 4), jnp.float32), jnp.ones((8, 1))),
         {"reduce_axes": (0, 1), "lr": 0.1}),
    ],
    "examples.clipping:soft_clip": [
        ((jnp.linspace(-3.0, 3.0, 7), 2.0), {}),
        ((jnp.linspace(-3.0, 3.0, 7), -1.0), {}),
    ],
    "examples.clipping:normalise": [
        ((jnp.linspace(-3.0, 3.0, 7),), {}),
        ((jnp.zeros(4),), {}),
    ],
}
