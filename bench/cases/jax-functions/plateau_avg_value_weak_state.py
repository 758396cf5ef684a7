# source: https://github.com/google-deepmind/optax/issues/1440
# framework: jax
# shape: function
# expect: observed compiles=2
# hazard: 46 JIT123 `avg_value` starts as the weak-typed `jnp.asarray(0.0)` and the jitted step returns it computed from the float32 loss, so the second step compiles again

# The reporter's plateau scheduler kept a running mean of the loss in its state,
# initialised without a dtype; here the state is the training loop's own dict.
import logging

import jax
import jax.numpy as jnp

compiles = []


class _CountCompiles(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("Compiling jit(train_step)"):
            compiles.append(record)


@jax.jit
def train_step(state, x, y):
    w = state["params"]
    loss = jnp.mean((x @ w - y) ** 2)
    grad = 2.0 * x.T @ (x @ w - y) / y.shape[0]
    new_count = state["count"] + 1
    return {
        "params": w - 0.01 * state["scale"] * grad,
        "count": new_count,
        "avg_value": (state["count"] * state["avg_value"] + loss) / new_count,
        "scale": state["scale"],
    }


if __name__ == "__main__":
    logging.getLogger("jax").addHandler(_CountCompiles())
    jax.config.update("jax_log_compiles", True)
    key_x, key_y = jax.random.split(jax.random.PRNGKey(0))
    x = jax.random.normal(key_x, (32, 4))
    y = jax.random.normal(key_y, (32,))
    state = {
        "params": jnp.zeros(4),
        "count": jnp.asarray(0, dtype=jnp.int32),
        "avg_value": jnp.asarray(0.0),
        "scale": jnp.asarray(1.0, dtype=jnp.float32),
    }
    for _ in range(3):
        state = train_step(state, x, y)
    print(state["avg_value"])
    print(f"observed: compiles={len(compiles)}")

# Note: adapted, not mined as it stands: the report's state lives inside optax's scheduler (which
# the model does not follow), and the loop sits at module level so the batch's dtype is
# known; this case shows the rule works on the shape, not that it finds the report's code.
