# source: https://github.com/google-deepmind/dm-haiku/issues/63
# framework: jax
# shape: class
# expect: observed distinct_scales=1
# hazard: 17 JIT107 `np.random` in the module constructor: under jax.jit(apply) it runs once at trace time and the drawn value is baked into the compiled function
"""A haiku module draws a random hyper-parameter when constructed; the
transformed apply function is jitted and called several times."""
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


class NoisyScale(hk.Module):
    def __init__(self):
        super().__init__(name="noisy_scale")
        self.scale = float(np.random.uniform(0.5, 1.5))

    def __call__(self, x):
        w = hk.get_parameter("w", (x.shape[-1],), init=jnp.ones)
        return self.scale * w * x


forward = hk.without_apply_rng(hk.transform(lambda x: NoisyScale()(x)))
x = jnp.ones(3)
params = forward.init(None, x)
apply = jax.jit(forward.apply)
outputs = {round(float(apply(params, x)[0]), 6) for _ in range(5)}
print(f"observed: distinct_scales={len(outputs)}")
