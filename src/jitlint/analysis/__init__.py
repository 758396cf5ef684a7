"""Facts about a module that rules share: names and scopes, and the JAX jit model."""
