# source: https://github.com/aesara-devs/aesara/issues/1158
# framework: jax
# shape: class
# expect: error ConcretizationTypeError
# hazard: 32 JIT102 `.item()` on the traced task index inside the module applied under jax.jit
# hazard: 28 JIT113 a jitted helper is defined inside `__call__`, re-created on every call
"""A prompt-pool module picks one of several convolutions by task id."""
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp


class PromptPool(nn.Module):
    size: int

    def setup(self):
        self.pool_conv = [
            nn.Conv(features=3, kernel_size=(3, 3), padding="SAME") for _ in range(self.size)
        ]

    def __call__(self, x, task_id):
        if self.is_initializing():
            for conv in self.pool_conv:
                conv(x)

        @partial(jax.jit, static_argnums=0)
        def get_conv_from_pool(conv_idx, sample):
            return self.pool_conv[conv_idx](sample)

        conv_idx = jax.device_get(task_id).item()
        return get_conv_from_pool(conv_idx, x)


pool = PromptPool(size=3)
images = jnp.ones((2, 8, 8, 3))
variables = pool.init(jax.random.PRNGKey(0), images, jnp.array(0))
apply = jax.jit(pool.apply)
print(apply(variables, images, jnp.array(2)).shape)
