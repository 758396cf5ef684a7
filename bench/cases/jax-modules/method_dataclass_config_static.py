# source: https://github.com/jax-ml/jax/issues/3701
# framework: jax
# shape: class
# expect: error ValueError
# hazard: 31 JIT110 a non-frozen dataclass (unhashable: `eq=True` sets `__hash__ = None`) is passed to the static parameter
"""An evaluator passes its dataclass config as a static argument."""
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class EvalConfig:
    temperature: float
    top_k: int


@partial(jax.jit, static_argnums=1)
def _score(batch, config):
    logits = batch / config.temperature
    return jax.lax.top_k(logits, config.top_k)[0].sum(axis=-1)


class Evaluator:
    def __init__(self, config):
        self.config = config

    def evaluate(self, batch):
        return _score(batch, self.config)


ev = Evaluator(EvalConfig(temperature=2.0, top_k=2))
print(ev.evaluate(jnp.arange(12.0).reshape(3, 4)))
