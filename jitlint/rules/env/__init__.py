"""Environment and process set-up rules (JIT3xx)."""
