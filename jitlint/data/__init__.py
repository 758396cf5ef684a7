"""Data files shipped with jitlint (the XLA op table for JIT203, the arguments XLA needs as
compile-time constants for JIT202/JIT213, the JAX and module-class facts)."""
