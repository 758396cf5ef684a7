"""The JAX tracing model: which functions are traced, and which values in them are tracers."""

# Registers the framework plug-ins before any module of the model reads their table.
import jitlint.model.jax.frameworks  # noqa: F401
