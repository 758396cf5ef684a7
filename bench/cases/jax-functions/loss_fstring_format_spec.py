# source: https://github.com/jax-ml/jax/issues/23475
# framework: jax
# shape: function
# expect: error TypeError
# hazard: 20 JIT102|JIT109 the f-string applies the `.4f` format spec to the traced `loss` inside the jitted step

# A training step that builds a fixed-width status line. The f-string is
# evaluated while tracing, where `loss` is a tracer.
import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x, y):
    def loss_fn(w):
        return jnp.mean((x @ w - y) ** 2)

    loss, grad = jax.value_and_grad(loss_fn)(w)
    w = w - 0.1 * grad
    status = f"loss={loss:.4f}"
    jax.debug.print(status)
    return w, loss


if __name__ == "__main__":
    x = jnp.ones((4, 2))
    y = jnp.arange(4.0)
    w = jnp.zeros(2)
    for _ in range(2):
        w, loss = train_step(w, x, y)
