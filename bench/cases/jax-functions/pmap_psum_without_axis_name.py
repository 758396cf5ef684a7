# source: https://github.com/jax-ml/jax/issues/3120
# framework: jax
# shape: function
# expect: error NameError
# hazard: 15 JIT119 `psum` over 'batch' under a `jax.pmap` that names no axis

# A per-device total across the batch of devices: the collective names the
# axis 'batch', but the pmap that runs it was not given `axis_name`.
import numpy as np

import jax


def total(x):
    return jax.lax.psum(x, axis_name="batch")


if __name__ == "__main__":
    a = np.arange(4)[np.newaxis, :]
    print(a.shape)
    print(jax.pmap(total)(a))
