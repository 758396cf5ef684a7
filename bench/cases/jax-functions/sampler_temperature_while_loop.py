# source: https://github.com/Physical-Intelligence/openpi/pull/550
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 25 JIT101 `if temperature > 0` inside the lax.while_loop body; `temperature` is a traced argument of the jitted sampler

# Autoregressive token sampling: greedy when temperature is 0, otherwise
# categorical sampling. The temperature arrives as a keyword of the jitted call.
import jax
import jax.numpy as jnp

VOCAB = 11
MAX_LEN = 6


@jax.jit
def sample_tokens(rng, logits_table, temperature=0.0):
    def cond(state):
        _, _, step = state
        return step < MAX_LEN

    def body(state):
        rng, tokens, step = state
        logits = logits_table[step]
        if temperature > 0:
            rng, sub = jax.random.split(rng)
            token = jax.random.categorical(sub, logits / temperature)
        else:
            token = jnp.argmax(logits)
        tokens = tokens.at[step].set(token)
        return rng, tokens, step + 1

    init = (rng, jnp.zeros((MAX_LEN,), jnp.int32), 0)
    _, tokens, _ = jax.lax.while_loop(cond, body, init)
    return tokens


if __name__ == "__main__":
    table = jax.random.normal(jax.random.PRNGKey(1), (MAX_LEN, VOCAB))
    print(sample_tokens(jax.random.PRNGKey(0), table))
    print(sample_tokens(jax.random.PRNGKey(0), table, temperature=0.7))
