# source: https://raw.githubusercontent.com/jax-ml/jax/jax-v0.8.0/docs/jit-compilation.md
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 17 JIT101 `while not converged` converts the traced comparison `converged` to a Python bool inside the jitted solver

# Fixed-point iteration for x = cos(x), stopping when the update is small.
import jax
import jax.numpy as jnp


@jax.jit
def solve_fixed_point(x0, tol):
    x = x0
    converged = False
    steps = 0
    while not converged and steps < 100:
        x_new = jnp.cos(x)
        converged = jnp.abs(x_new - x) < tol
        x = x_new
        steps += 1
    return x


if __name__ == "__main__":
    print(solve_fixed_point(1.0, 1e-5))
