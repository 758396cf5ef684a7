# source: https://github.com/blackjax-devs/blackjax/issues/1029
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 33 JIT102 `float(step_size_avg)` concretizes a value computed with jnp.exp inside the jitted adaptation run

# Step-size adaptation followed by a trajectory-length floor. The floor helper
# wants a Python float, so the averaged step size is passed through float().
import jax
import jax.numpy as jnp

MAX_LEAPFROG = 32


def apply_length_floor(trajectory_length, lambda_max, step_size):
    floor = jnp.sqrt(lambda_max)
    capped = jnp.minimum(jnp.maximum(trajectory_length, floor), MAX_LEAPFROG * step_size)
    return capped


def run_adaptation(rng, positions, num_steps=10):
    def step(carry, key):
        log_step, traj = carry
        accept = jax.random.uniform(key)
        log_step = log_step + 0.1 * (accept - 0.65)
        traj = traj * (1.0 + 0.05 * (accept - 0.5))
        return (log_step, traj), log_step

    keys = jax.random.split(rng, num_steps)
    (log_step, traj), history = jax.lax.scan(step, (jnp.log(0.1), 1.0), keys)
    step_size_avg = jnp.exp(jnp.mean(history))
    lambda_max = jnp.max(jnp.var(positions, axis=0))
    traj = apply_length_floor(traj, lambda_max, float(step_size_avg))
    return jnp.exp(log_step), traj


if __name__ == "__main__":
    pos = jax.random.normal(jax.random.PRNGKey(1), (8, 3))
    print(run_adaptation(jax.random.PRNGKey(0), pos))
    print(jax.jit(run_adaptation)(jax.random.PRNGKey(0), pos))
