"""The operator base of a coordinates library, in its own module as the library keeps it: every
operator is an equinox module, applied by calling it, which defers to the subclass's `apply`."""

import equinox as eqx
import jax


class AbstractOperator(eqx.Module):
    def __call__(self, x: jax.Array) -> jax.Array:
        return self.apply(x)

    def apply(self, x: jax.Array) -> jax.Array:
        raise NotImplementedError
