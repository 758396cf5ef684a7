"""The JAX tracing model: which functions are traced, and which values in them are tracers."""
