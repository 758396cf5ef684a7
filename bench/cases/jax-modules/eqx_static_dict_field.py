# source: https://github.com/patrick-kidger/equinox/issues/1089
# framework: jax
# shape: class
# expect: error ValueError
# hazard: 34 JIT110 the static half of the partition still holds the module's dict field: a dict is passed to the static parameter
"""A module carrying a dict of settings, split with eqx.partition and fed to a
jax.jit whose static half is marked static."""
import equinox as eqx
import jax
import jax.numpy as jnp


class Scaler(eqx.Module):
    settings: dict
    gain: jax.Array

    def __init__(self, settings):
        self.settings = settings
        self.gain = jnp.ones(3)

    def __call__(self, x):
        return self.gain * x * self.settings["factor"]


def _merge_and_call(dynamic, static, x):
    model = eqx.combine(dynamic, static)
    return model(x)


run_model = jax.jit(_merge_and_call, static_argnames="static")

model = Scaler({"factor": 2.0})
dynamic, static = eqx.partition(model, eqx.is_array)
print(run_model(dynamic, static, jnp.arange(3.0)))
