# source: https://github.com/jax-ml/jax/issues/3701
# framework: jax
# shape: function
# expect: error ValueError
# hazard: 33 JIT110 `config` is an instance of a plain (non-frozen) dataclass, unhashable, passed to a static parameter

# Evaluation settings carried in a dataclass and marked static so the jitted
# function can branch on them.
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class EvalConfig:
    temperature: float
    top_k: int


@partial(jax.jit, static_argnums=1)
def score(logits, config):
    scaled = logits / config.temperature
    top = jax.lax.top_k(scaled, config.top_k)[0]
    return jax.nn.logsumexp(top)


def evaluate(batches):
    config = EvalConfig(temperature=0.7, top_k=3)
    total = 0.0
    for logits in batches:
        total = total + score(logits, config)
    return total


if __name__ == "__main__":
    batches = [jnp.arange(6.0), jnp.arange(6.0) * 2]
    print(evaluate(batches))
