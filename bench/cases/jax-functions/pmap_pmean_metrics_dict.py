# source: https://github.com/google/flax/issues/527
# framework: jax
# shape: function
# expect: ok

# The Flax-examples metrics pattern: metrics are averaged across devices with
# lax.pmean, which returns a new (ordinary Python) dict, and then a few
# host-side entries are added to it inside the pmapped step.
from functools import partial

import jax
import jax.numpy as jnp


def compute_metrics(logits, labels, lr):
    metrics = {
        "loss": jnp.mean((logits - jax.nn.one_hot(labels, logits.shape[-1])) ** 2),
        "accuracy": jnp.mean(jnp.argmax(logits, -1) == labels),
    }
    metrics = jax.lax.pmean(metrics, axis_name="batch")
    metrics["learning_rate"] = lr
    metrics["num_examples"] = jax.lax.psum(labels.shape[0], axis_name="batch")
    return metrics


@partial(jax.pmap, axis_name="batch")
def eval_step(w, x, y):
    logits = x @ w
    return compute_metrics(logits, y, 0.1)


if __name__ == "__main__":
    n = jax.local_device_count()
    w = jnp.ones((n, 3, 4))
    x = jnp.ones((n, 5, 3))
    y = jnp.zeros((n, 5), dtype=jnp.int32)
    out = eval_step(w, x, y)
    print({k: v.shape for k, v in out.items()})
