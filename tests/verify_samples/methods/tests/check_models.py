import jax.numpy as jnp
from mpkg import models


# The hazards make these calls fail under jit; the plugin has recorded them by then.
def test_scale():
    assert models.Scale(jnp.arange(3.0))(jnp.ones(3)).shape == (3,)


def test_gate():
    assert models.Gate(jnp.ones(3))(jnp.ones(3)) == 3.0


def test_counter():
    assert models.Counter(2.0).total(jnp.ones(4)) == 8.0
