"""Data files shipped with jitlint (the XLA op table for JIT203)."""
