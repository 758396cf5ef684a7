# source: https://github.com/LeCAR-Lab/CoVO-MPC/issues/2
# framework: jax
# shape: function
# expect: observed logs=1
# hazard: 23 JIT107 `logging.info` inside the function reached from the jitted rollout runs once at trace time and logs a tracer

# Logging the mean loss of each MPC rollout with the standard logging module.
import logging

import jax
import jax.numpy as jnp

records = []


class _Collect(logging.Handler):
    def emit(self, record):
        records.extend([record] if record.name == "root" else [])  # not jax's own logs


def _log_loss(total_loss):
    total_loss_mean = jnp.mean(total_loss)
    logging.info("mean rollout loss %s", total_loss_mean)


@jax.jit
def rollout(actions, target):
    states = jnp.cumsum(actions, axis=0)
    total_loss = jnp.sum((states - target) ** 2, axis=-1)
    _log_loss(total_loss)
    return total_loss


if __name__ == "__main__":
    logging.getLogger().addHandler(_Collect())
    logging.getLogger().setLevel(logging.INFO)
    for k in range(4):
        rollout(jnp.ones((5, 2)) * k, jnp.zeros(2))
    print(f"observed: logs={len(records)}")
