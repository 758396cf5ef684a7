"""The sparse solver after the fix: `analyze` returns the raw symbol while it is being
traced and wraps a Python int only when the value is concrete, as `factor` already did."""

import jax
import jax.numpy as jnp


class Symbolic:
    def __init__(self, handle: int):
        self.handle = handle


def _analyze_pattern(Ai, Aj, n_col):
    # Stands in for the binding's primitive: a fingerprint of the pattern as an integer.
    return jnp.sum(Ai * n_col + Aj, dtype=jnp.uint32)


def analyze(Ai, Aj, n_col):
    raw_symbol = _analyze_pattern(Ai, Aj, n_col)
    if isinstance(raw_symbol, jax.core.Tracer):
        return raw_symbol  # inside a trace the handle stays symbolic
    return Symbolic(int(raw_symbol))


def solve(Ai, Aj, Ax, b):
    n = b.shape[0]
    symbolic = analyze(Ai, Aj, n)
    dense = jnp.zeros((n, n), Ax.dtype).at[Ai, Aj].add(Ax)
    return jnp.linalg.solve(dense, b), symbolic
