import jax
import jax.numpy as jnp
import tensorflow as tf
from mpkg import layers, models


def make_scale():
    return models.Scale(jnp.arange(3.0) - 1.0)


EXAMPLES = {
    "mpkg.models:Scale.__call__": [
        (make_scale, (jnp.ones(3),), {}),
        (make_scale, (jnp.array([-1.0, -2.0, -3.0]),)),
    ],
    "mpkg.models:Gate.__call__": [(lambda: models.Gate(jnp.ones(3)), (jnp.ones(3),), {})],
    "mpkg.models:Counter.total": [
        (models.Counter(2.0), (jax.ShapeDtypeStruct((4,), jnp.float32),))
    ],
    "mpkg.layers:Project.call": [(lambda: layers.Project(4), (tf.TensorSpec((2, 3), tf.float32),))],
}
