# source: https://github.com/pyro-ppl/numpyro/issues/313
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 26 JIT101 `if num_warmup < 20` tests an argument of the jitted closure returned by the factory, so it is traced

# A sampler factory returns a jitted "run warmup" closure so that changing
# num_warmup does not recompile. The adaptation schedule still branches on
# num_warmup with a Python `if`.
import jax
import jax.numpy as jnp


def build_warmup(target_accept=0.8):
    def adapt(step_size, accept_prob, rate):
        log_step = jnp.log(step_size) + rate * (accept_prob - target_accept)
        return jnp.exp(log_step)

    def run_warmup(rng, step_size, num_warmup):
        def body(i, carry):
            rng, step_size = carry
            rng, sub = jax.random.split(rng)
            accept_prob = jax.random.uniform(sub)
            return rng, adapt(step_size, accept_prob, 0.05)

        if num_warmup < 20:
            # too short for a schedule: keep the initial step size
            return step_size
        _, step_size = jax.lax.fori_loop(0, num_warmup, body, (rng, step_size))
        return step_size

    return jax.jit(run_warmup)


if __name__ == "__main__":
    warmup = build_warmup()
    print(warmup(jax.random.PRNGKey(0), 0.1, 50))
