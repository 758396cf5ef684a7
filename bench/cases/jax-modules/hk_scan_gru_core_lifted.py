# source: https://github.com/google-deepmind/dm-haiku/issues/214
# framework: jax
# shape: class
# expect: ok
"""The same GRU encoder after the reporter's fix: haiku's own `hk.scan` threads
the parameters through the loop, and a core called once before a raw scan
(`warm`) already owns its weights, so only the lifted loop creates any."""
import haiku as hk
import jax
import jax.numpy as jnp


def encode(inputs):
    core = hk.GRU(16)
    state = core.initial_state(inputs.shape[1])

    def step(carry, x_t):
        out, carry = core(x_t, carry)
        return carry, out

    final, outs = hk.scan(step, state, inputs)
    return final, outs


def warm(inputs):
    cell = hk.Linear(3)
    first = cell(inputs[0])
    _, outs = jax.lax.scan(lambda c, x: (c, cell(x)), first, inputs)
    return outs


for fn in (encode, warm):
    model = hk.without_apply_rng(hk.transform(fn))
    seq = jnp.ones((7, 2, 3))
    params = model.init(jax.random.PRNGKey(0), seq)
    jax.jit(model.apply)(params, seq)
print("ok")
