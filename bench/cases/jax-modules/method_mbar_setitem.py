# source: https://github.com/choderalab/pymbar/issues/557
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 25 JIT106 item assignment into `f_k_init`, a JAX array (built with jnp.zeros), inside the initializer method
"""Free-energy estimator that initialises f_k from pairwise BAR estimates,
using the JAX array backend."""
import jax.numpy as jnp


class MBAR:
    def __init__(self, u_kn, N_k):
        self.u_kn = jnp.asarray(u_kn)
        self.N_k = jnp.asarray(N_k)
        self.K = self.u_kn.shape[0]

    def _bar_estimate(self, w_F, w_R):
        return 0.5 * (jnp.mean(w_F) - jnp.mean(w_R))

    def _initialize_with_bar(self):
        f_k_init = jnp.zeros(self.K)
        for l in range(1, self.K):
            w_F = self.u_kn[l] - self.u_kn[l - 1]
            w_R = self.u_kn[l - 1] - self.u_kn[l]
            f_k_init[l] = (
                f_k_init[l - 1] + self._bar_estimate(w_F, w_R)
            )
        return f_k_init


u_kn = jnp.array([[0.0, 1.0, 2.0], [0.5, 1.5, 2.5], [1.0, 2.0, 3.0]])
mbar = MBAR(u_kn, N_k=[1, 1, 1])
print(mbar._initialize_with_bar())
