# source: https://github.com/google-deepmind/dm-haiku/issues/214
# framework: jax
# shape: class
# expect: error UnexpectedTracerError
# hazard: 25 JIT120 a haiku GRU core stepped by raw `jax.lax.scan` inside the transformed function
"""A sequence encoder written as a haiku transformed function: a GRU core is made
once and stepped over the time axis with `jax.lax.scan`. `init` runs the first
step inside the scan, so the core's weights are created from scan tracers and
leak out; the reporter's fix was `hk.scan`."""
import haiku as hk
import jax
import jax.numpy as jnp


def encode(inputs):
    core = hk.GRU(16)
    readout = hk.Linear(4)
    batch = inputs.shape[1]
    state = core.initial_state(batch)

    def step(carry, x_t):
        out, carry = core(x_t, carry)
        return carry, out

    final, outs = jax.lax.scan(step, state, inputs)
    return readout(final), outs


model = hk.without_apply_rng(hk.transform(encode))
seq = jnp.ones((7, 2, 3))  # time, batch, features
params = model.init(jax.random.PRNGKey(0), seq)
logits, _ = jax.jit(model.apply)(params, seq)
print(logits.shape)
