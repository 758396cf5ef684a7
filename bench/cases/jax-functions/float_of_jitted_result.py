# source: https://github.com/quantumlib/OpenFermion/pull/1396
# framework: jax
# shape: function
# expect: ok

# The fix direction of the PR: the jitted objective returns an array and the
# caller converts it with float() after the call, outside any trace, to hand
# it to a SciPy-style optimiser that wants Python floats.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def objective(x, target):
    return jnp.sum((x - target) ** 2) + 0.1 * jnp.sum(jnp.abs(x))


def scipy_style_objective(x_np, target):
    value = objective(jnp.asarray(x_np), target)
    return float(value)


if __name__ == "__main__":
    target = jnp.array([1.0, -2.0, 0.5])
    x = np.zeros(3)
    best = scipy_style_objective(x, target)
    for _ in range(3):
        x = x + 0.1 * np.sign(np.asarray(target) - x)
        best = min(best, scipy_style_objective(x, target))
    print(best)
