# source: https://github.com/state-space-models/cuthbert/pull/127
# source: https://docs.jax.dev/en/latest/external-callbacks.html
# framework: jax
# shape: function
# expect: observed logged=0
# hazard: 26 JIT118 the unused `pure_callback` result lets `jax.jit` drop the call, so nothing is logged

# A filter step that records each step's log-likelihood on the host through
# `jax.pure_callback`, called for its side effect only; under jit the
# callback is dead code and the log stays empty.
import jax
import jax.numpy as jnp

LOG = []


def record(value):
    LOG.append(float(value))
    return value


@jax.jit
def filter_step(mean, obs):
    innovation = obs - mean
    loglik = -0.5 * jnp.sum(innovation**2)
    jax.pure_callback(record, jax.ShapeDtypeStruct((), jnp.float32), loglik)
    return mean + 0.5 * innovation


if __name__ == "__main__":
    mean = jnp.zeros(2)
    for obs in jnp.ones((3, 2)):
        mean = filter_step(mean, obs)
    jax.block_until_ready(mean)
    print(f"observed: logged={len(LOG)}")
