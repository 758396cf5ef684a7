import jax
import jax.numpy as jnp
import numpy as np

ns = 90
ne = 100
nq = 80

bigmat = jnp.array(np.random.random((ne, nq, ns)))


def foo(x, mat):
    def body(i, f):
        gx = mat[i] @ x
        return f.at[i].set(gx.sum())

    f = jnp.zeros(x.shape[0])
    return jax.lax.fori_loop(0, 1, body, f)


def foo_closed(y):
    return foo(y, bigmat)
