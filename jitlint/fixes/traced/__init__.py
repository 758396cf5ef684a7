"""Fixes that rewrite code reading traced values: `if`/`while`/checks on tracers, masks,
concretizations (one module per shape of rewrite)."""
