# source: https://github.com/google-deepmind/dm-haiku/issues/187
# framework: jax
# shape: class
# expect: error ValueError
# hazard: 46 JIT110 `is_training` is traced in `update` (not static there) and is passed on to the static parameter of `model_loss`: a tracer cannot be hashed
# hazard: 25 JIT101 `if` on `is_training`, which is traced when it comes from the jitted `update`
"""A haiku network with BatchNorm and dropout switched by is_training."""
import functools

import haiku as hk
import jax
import jax.numpy as jnp
import optax


class Net(hk.Module):
    def __init__(self, output_size=1):
        super().__init__()
        self.hidden = hk.Linear(16)
        self.norm = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)
        self.out = hk.Linear(output_size)

    def __call__(self, x, is_training):
        x = jax.nn.relu(self.norm(self.hidden(x), is_training=is_training))
        if is_training:
            x = hk.dropout(hk.next_rng_key(), 0.1, x)
        return self.out(x)


def forward(x, is_training):
    return Net(1)(x, is_training)


model = hk.transform_with_state(forward)
opt = optax.sgd(1e-2)


@functools.partial(jax.jit, static_argnums=(5,))
def model_loss(params, state, rng, x, y, is_training):
    pred, state = model.apply(params, state, rng, x, is_training)
    return jnp.mean((pred - y) ** 2), state


@jax.jit
def update(params, state, opt_state, rng, x, y, is_training):
    grads, state = jax.grad(model_loss, has_aux=True)(params, state, rng, x, y, is_training)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), state, opt_state


rng = jax.random.PRNGKey(0)
x = jnp.ones((8, 3))
y = jnp.zeros((8, 1))
params, state = model.init(rng, x, True)
opt_state = opt.init(params)
params, state, opt_state = update(params, state, opt_state, rng, x, y, True)
print(jax.tree_util.tree_map(jnp.shape, params))
