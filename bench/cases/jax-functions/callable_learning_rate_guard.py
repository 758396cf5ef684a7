# source: https://github.com/google-deepmind/optax/issues/399
# framework: jax
# shape: function
# expect: ok

# An optimizer that accepts either a float or a schedule function as its
# learning rate, the way optax does; the callable/isinstance checks are on
# Python objects closed over by the jitted update.
import jax
import jax.numpy as jnp


def sgd(learning_rate):
    def init(params):
        return jnp.zeros([], jnp.int32)

    def update(grads, count):
        if callable(learning_rate):
            lr = learning_rate(count)
        elif isinstance(learning_rate, (int, float)):
            lr = jnp.asarray(learning_rate, jnp.float32)
        else:
            raise TypeError(type(learning_rate))
        updates = jax.tree_util.tree_map(lambda g: -lr * g, grads)
        return updates, count + 1

    return init, jax.jit(update)


if __name__ == "__main__":
    params = {"w": jnp.ones(3)}
    grads = {"w": jnp.full(3, 0.5)}
    for lr in (0.1, lambda step: 0.1 * 0.9 ** step):
        init, update = sgd(lr)
        state = init(params)
        for _ in range(2):
            updates, state = update(grads, state)
        print(updates)
