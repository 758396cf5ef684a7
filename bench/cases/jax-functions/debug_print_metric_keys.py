# source: https://github.com/LeCAR-Lab/CoVO-MPC/issues/2
# framework: jax
# shape: function
# expect: ok

# The resolution from the thread: values go through jax.debug.print. The
# message template is built from the (static) metric names, and the names are
# also returned for host-side logging.
import jax
import jax.numpy as jnp


@jax.jit
def rollout_metrics(actions, target):
    states = jnp.cumsum(actions, axis=0)
    metrics = {
        "loss_mean": jnp.mean(jnp.sum((states - target) ** 2, axis=-1)),
        "final_dist": jnp.linalg.norm(states[-1] - target),
    }
    names = sorted(metrics)
    template = ", ".join(f"{name}={{{name}}}" for name in names)
    jax.debug.print(template, **metrics)
    return metrics


if __name__ == "__main__":
    out = rollout_metrics(jnp.ones((5, 2)), jnp.zeros(2))
    print("logged keys:", " ".join(out))
