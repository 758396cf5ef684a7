# source: https://github.com/jax-ml/jax/pull/16430
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 19 JIT101 builtin `min` on two traced values (vmapped inside jit) needs a Python bool of their comparison

# Clipped surrogate objective for a single transition, vectorised over the
# batch. Written first for scalars with the builtin min.
import jax
import jax.numpy as jnp

CLIP_EPS = 0.2


def surrogate(logp_new, logp_old, advantage):
    ratio = jnp.exp(logp_new - logp_old)
    unclipped = ratio * advantage
    clipped = jnp.clip(ratio, 1.0 - CLIP_EPS, 1.0 + CLIP_EPS) * advantage
    return min(clipped, unclipped)


@jax.jit
def ppo_loss(logp_new, logp_old, advantages):
    return -jnp.mean(jax.vmap(surrogate)(logp_new, logp_old, advantages))


if __name__ == "__main__":
    lp_new = jnp.array([-1.0, -0.5, -2.0])
    lp_old = jnp.array([-1.1, -0.7, -1.5])
    adv = jnp.array([1.0, -0.5, 2.0])
    print(ppo_loss(lp_new, lp_old, adv))
