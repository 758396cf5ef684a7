# source: https://github.com/patrick-kidger/equinox/issues/987
# framework: jax
# shape: multi-file
# expect: ok
"""The user's script (excluded from linting by jitlint.toml), used as the library intends:
the model goes through `eqx.filter_jit`, which keeps the `inference` flag and `p` static.
(The report's error came from carrying the whole module through `lax.scan`, which traces
its bool field.)"""
import equinox as eqx
import jax
import jax.numpy as jnp

from .layers import ResidualBlock

model_key, dropout_key = jax.random.split(jax.random.PRNGKey(0))
model = ResidualBlock(4, key=model_key)


@eqx.filter_jit
def forward(model, x, key):
    return model(x, key=key)


x = jnp.ones(4)
print(forward(model, x, dropout_key))
print(forward(eqx.nn.inference_mode(model), x, dropout_key))
