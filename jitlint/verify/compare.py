"""Compare the original's eager outputs with the fixed function's compiled outputs, per leaf.

Runs in the worker only (imports numpy). Structures must agree (a Python scalar and an array
are both leaves, so `float(loss)` → `loss` keeps the structure); shapes must match exactly (a
Python scalar is shape ()); numbers agree within tolerances chosen by the narrower float dtype
of the pair, because XLA reorders and fuses float arithmetic; integers and bools exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# (rtol, atol) by float width in bytes; bfloat16 and float16 are both 2 bytes wide.
_TOLERANCES = {2: (1e-2, 1e-2), 4: (1e-5, 1e-6), 8: (1e-9, 1e-12)}
_SCALARS = (bool, int, float, complex)


def flatten(value: Any, where: str = "") -> list[tuple[str, Any]]:
    """(path, leaf) pairs; containers are tuples/lists, dicts, namedtuples, dataclass-free."""
    if isinstance(value, tuple | list):
        out = []
        for i, item in enumerate(value):
            out.extend(flatten(item, f"{where}[{i}]"))
        return out or [(where + "[]", _Empty(type(value).__name__))]
    if isinstance(value, dict):
        out = []
        for key in sorted(value, key=repr):
            out.extend(flatten(value[key], f"{where}[{key!r}]"))
        return out or [(where + "{}", _Empty("dict"))]
    return [(where or "output", value)]


class _Empty:
    """An empty container stands as a leaf, so () and [] and {} are compared too."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Empty) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def __repr__(self) -> str:
        return f"empty {self.kind}"


def _as_array(leaf: Any) -> np.ndarray | None:
    if isinstance(leaf, _SCALARS) or hasattr(leaf, "__array__"):
        try:
            if hasattr(leaf, "numpy") and not isinstance(leaf, np.ndarray):
                leaf = leaf.numpy()  # tf.Tensor
            return np.asarray(leaf)
        except Exception:  # a leaf numpy cannot read is compared with ==
            return None
    return None


def _tolerance(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    widths = [x.dtype.itemsize for x in (a, b) if x.dtype.kind == "f"]
    widths += [x.dtype.itemsize // 2 for x in (a, b) if x.dtype.kind == "c"]
    return _TOLERANCES.get(min(widths) if widths else 8, (1e-5, 1e-6))


def compare(expected: Any, actual: Any) -> str | None:
    """None when the outputs agree, else where and how they differ."""
    left, right = flatten(expected), flatten(actual)
    if [p for p, _ in left] != [p for p, _ in right]:
        return (
            f"the output structure differs: original {[p for p, _ in left]}, "
            f"fixed {[p for p, _ in right]}"
        )
    for (path, a), (_, b) in zip(left, right, strict=True):
        problem = _compare_leaf(a, b)
        if problem:
            return f"{path}: {problem}"
    return None


def _compare_leaf(a: Any, b: Any) -> str | None:
    x, y = _as_array(a), _as_array(b)
    if x is None or y is None:
        if x is None and y is None:
            return None if a == b else f"{a!r} != {b!r}"
        return f"{type(a).__name__} vs {type(b).__name__}"
    if x.shape != y.shape:
        return f"shape {x.shape} vs {y.shape}"
    kinds = {x.dtype.kind, y.dtype.kind}
    python_scalar = isinstance(a, _SCALARS) or isinstance(b, _SCALARS)
    if x.dtype != y.dtype and not python_scalar and not kinds <= {"f", "c"}:
        return f"dtype {x.dtype} vs {y.dtype}"
    if kinds <= {"b", "i", "u"}:
        return None if np.array_equal(x, y) else _difference(x, y)
    if not kinds <= {"b", "i", "u", "f", "c"}:
        return None if np.array_equal(x, y) else f"{a!r} != {b!r}"
    rtol, atol = _tolerance(x, y)
    xs, ys = x.astype(np.complex128), y.astype(np.complex128)
    if np.allclose(xs, ys, rtol=rtol, atol=atol, equal_nan=True):
        return None
    return _difference(x, y) + f" (rtol={rtol:g}, atol={atol:g})"


def _difference(x: np.ndarray, y: np.ndarray) -> str:
    if x.shape == ():
        return f"{x.item()!r} vs {y.item()!r}"
    delta = np.abs(x.astype(np.complex128) - y.astype(np.complex128))
    worst = np.unravel_index(int(np.nanargmax(delta)), delta.shape) if delta.size else ()
    return (
        f"{int(np.count_nonzero(delta))} of {delta.size} elements differ; at {tuple(worst)}: "
        f"{x[worst]!r} vs {y[worst]!r}"
    )
