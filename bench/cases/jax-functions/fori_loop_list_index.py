# source: https://github.com/jax-ml/jax/issues/2304
# framework: jax
# shape: function
# expect: error TracerIntegerConversionError
# hazard: 20 JIT102 the fori_loop body indexes the Python list `layers` with the traced loop index `i`

# Apply a stack of per-layer weight matrices with lax.fori_loop. The weights
# come from a library as a Python list of arrays.
import jax
import jax.numpy as jnp


def make_layers(n, dim):
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    return [jax.random.normal(k, (dim, dim)) / dim for k in keys]


def forward(layers, x):
    return jax.lax.fori_loop(
        0, len(layers), lambda i, h: jnp.tanh(layers[i] @ h), x
    )


if __name__ == "__main__":
    layers = make_layers(3, 4)
    print(forward(layers, jnp.ones(4)))
