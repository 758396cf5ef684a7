# source: https://github.com/dfm/tinygp/issues/85
# framework: jax
# shape: function
# expect: error TracerArrayConversionError
# hazard: 17 JIT104 `np.append` in the lambda given to jax.tree_util.tree_map converts the traced leaves to NumPy arrays

# A quasiseparable kernel needs each input shifted by one step. The inputs
# may be a pytree (e.g. time plus band index), hence the tree_map.
import jax
import jax.numpy as jnp
import numpy as np


def lagged_inputs(X):
    # prepend the first element so the lagged series has the same length
    return jax.tree_util.tree_map(
        lambda x: np.append(x[0], x[:-1]), X
    )


@jax.jit
def transition_gaps(X):
    Xs = lagged_inputs(X)
    return jax.tree_util.tree_map(lambda a, b: a - b, X, Xs)


if __name__ == "__main__":
    X = {"t": jnp.linspace(0.0, 1.0, 5), "band": jnp.arange(5.0)}
    print(transition_gaps(X))
