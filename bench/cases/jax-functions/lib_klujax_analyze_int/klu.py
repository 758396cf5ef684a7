"""Sparse solves in the style of a sparse linear-algebra binding: `analyze` studies the
sparsity pattern once and returns a handle that later factorisations reuse. The pattern
analysis is a JAX computation, so it can be traced; the handle wraps a Python int."""

import jax.numpy as jnp


class Symbolic:
    def __init__(self, handle: int):
        self.handle = handle


def _analyze_pattern(Ai, Aj, n_col):
    # Stands in for the binding's primitive: a fingerprint of the pattern as an integer.
    return jnp.sum(Ai * n_col + Aj, dtype=jnp.uint32)


def analyze(Ai, Aj, n_col):
    raw_symbol = _analyze_pattern(Ai, Aj, n_col)
    return Symbolic(int(raw_symbol))


def solve(Ai, Aj, Ax, b):
    n = b.shape[0]
    symbolic = analyze(Ai, Aj, n)
    dense = jnp.zeros((n, n), Ax.dtype).at[Ai, Aj].add(Ax)
    return jnp.linalg.solve(dense, b), symbolic
