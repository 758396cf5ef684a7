# source: https://github.com/blackjax-devs/blackjax/pull/651
# source: https://github.com/brainpy/BrainPy/pull/668
# source: https://github.com/jax-ml/jax/issues/20385
# framework: jax
# shape: function
# expect: error ImportError
# hazard: 15 JIT118 `jax.experimental.host_callback` was removed from jax, so the import fails

# A progress report for a long `lax.scan` sampler, written against the old
# host_callback API: every 10 steps the step number is tapped out to the
# host from inside the compiled loop.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import host_callback


def report(step, transforms):
    print(f"step {int(step)}")


def sample(num_steps):
    def body(carry, step):
        lax.cond(
            step % 10 == 0,
            lambda s: host_callback.id_tap(report, s),
            lambda s: s,
            step,
        )
        return carry + 0.5 * jnp.sin(carry), carry

    _, trace = lax.scan(body, jnp.float32(1.0), jnp.arange(num_steps))
    return trace


if __name__ == "__main__":
    print(jax.jit(sample, static_argnums=0)(30)[-1])
