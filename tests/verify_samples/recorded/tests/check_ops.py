import jax.numpy as jnp
from pkg.ops import total


def test_total():
    x = jnp.arange(6.0).reshape(2, 3)
    assert float(total(x, jnp.ones((2, 3)), axes=(0, 1))) == 30.0


def test_total_rows():
    assert total(jnp.ones((4, 3)), jnp.ones((4, 3)), axes=(1,)).shape == (4,)
