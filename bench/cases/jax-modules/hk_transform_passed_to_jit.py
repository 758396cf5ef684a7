# source: https://github.com/google-deepmind/dm-haiku/issues/218
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 35 JIT111 the transformed model (a pair of Python functions) is passed to a non-static parameter of a jitted function
"""Linear regression with a haiku module; the transformed model is handed to
the jitted training step as an ordinary argument."""
import haiku as hk
import jax
import jax.numpy as jnp


class Regressor(hk.Module):
    def __init__(self, input_dims):
        super().__init__()
        self.input_dims = input_dims

    def __call__(self, x):
        return hk.Linear(1)(x)[..., 0]


@jax.jit
def fit_step(model, params, x, y):
    def loss(p):
        return jnp.mean((model.apply(p, None, x) - y) ** 2)

    grads = jax.grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)


train_x = jnp.arange(20.0).reshape(10, 2) / 10
train_y = train_x @ jnp.array([2.0, -1.0])
model = hk.transform(lambda x: Regressor(train_x.shape[1])(x))
params = model.init(jax.random.PRNGKey(0), train_x)
params = fit_step(model, params, train_x, train_y)
print(jax.tree_util.tree_map(jnp.shape, params))
