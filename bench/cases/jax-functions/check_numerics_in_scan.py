# source: https://github.com/apple/axlearn/issues/815
# framework: jax
# shape: function
# expect: error TracerBoolConversionError
# hazard: 14 JIT101 `bool(...)` of a finiteness check on a traced activation, reached from the lax.scan body of a repeated layer

# A debug helper that asserts activations are finite, called from inside the
# body of a scanned (repeated) layer stack.
import jax
import jax.numpy as jnp


def check_numerics(x, msg="activations"):
    assert bool(jnp.isfinite(x).all()), f"non-finite {msg}"
    return x


def repeated_layers(weights, x):
    def body(h, w):
        h = jnp.tanh(h @ w)
        h = check_numerics(h, "layer output")
        return h, None

    h, _ = jax.lax.scan(body, x, weights)
    return h


if __name__ == "__main__":
    ws = jax.random.normal(jax.random.PRNGKey(0), (3, 4, 4)) * 0.5
    print(repeated_layers(ws, jnp.ones(4)))
