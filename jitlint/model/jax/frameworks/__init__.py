"""The framework plug-ins (one module per framework: equinox.py, linen.py, nnx.py, haiku.py,
optax.py, and structs.py for flax.struct, chex, dataclasses and NamedTuples), registered on
the table of `model/domain/plugins.py` when this package is imported. The rest of this folder
is what the frameworks do to the functions and modules they are given: which bodies their
`apply`/`init` run, and with which arguments."""

from jitlint.model.domain.plugins import register
from jitlint.model.jax.frameworks import equinox, haiku, linen, nnx, optax, structs

# The order is the order of `requires` tuples derived from the table (rules/_index.py).
register(linen.PLUGIN, nnx.PLUGIN, equinox.PLUGIN, haiku.PLUGIN, optax.PLUGIN, *structs.PLUGINS)
