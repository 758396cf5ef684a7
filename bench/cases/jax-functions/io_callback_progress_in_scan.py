# source: https://github.com/blackjax-devs/blackjax/pull/651
# source: https://github.com/tummfm/jax-sgmc/pull/50
# framework: jax
# shape: function
# expect: ok

# The same progress report after the migration away from host_callback:
# an ordered `io_callback` inside the compiled loop, its (empty) result
# unused, which is how io_callback is meant to be used for side effects.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import io_callback


def report(step):
    print(f"step {int(step)}")


def sample(num_steps):
    def body(carry, step):
        lax.cond(
            step % 10 == 0,
            lambda s: io_callback(report, None, s, ordered=True),
            lambda s: None,
            step,
        )
        return carry + 0.5 * jnp.sin(carry), carry

    _, trace = lax.scan(body, jnp.float32(1.0), jnp.arange(num_steps))
    return trace


if __name__ == "__main__":
    print(jax.jit(sample, static_argnums=0)(30)[-1])
