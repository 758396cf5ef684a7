# source: https://github.com/jax-ml/jax/issues/3045
# framework: jax
# shape: function
# expect: error TypeError
# hazard: 24 JIT111 the string "max" reaches `reduction`, a non-static parameter of the jitted function

# A pooling helper whose reduction is chosen by name; the branch on the
# string is fine only if the string is static.
import jax
import jax.numpy as jnp


@jax.jit
def pool(x, reduction):
    if reduction == "max":
        return jnp.max(x, axis=-1)
    elif reduction == "mean":
        return jnp.mean(x, axis=-1)
    raise ValueError(reduction)


if __name__ == "__main__":
    x = jnp.arange(12.0).reshape(3, 4)
    print(pool(x, "max"))
