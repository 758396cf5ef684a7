"""How many elements an array-making call makes, when its sizes are written as numbers
(JIT122: large arrays closed over by jitted code).

The size parameters of `jax.numpy` and `jax.random` constructors are the ones jax's own facts
call static (jax_facts.py: `shape`, `num`, `N`/`M`, `start`/`stop`); NumPy's constructors of
the same name take the same parameters. NumPy's random module spells sizes its own way
(`rand(d0, d1)`, `normal(loc, scale, size)`), listed here. Conversions (`jnp.array(a)`,
`jax.device_put(a)`) make as many elements as they are given.

Nothing here imports a framework; arguments arrive as integers already read from the source
(or None where a value is not a literal).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from jitlint.model.library.jax_facts import static_parameters

T = TypeVar("T")
# Conversions whose result has the elements of their first argument.
CONVERSIONS = frozenset(
    {
        "jax.device_put", "jax.numpy.array", "jax.numpy.asarray", "numpy.array",
        "numpy.asarray", "numpy.ascontiguousarray", "numpy.float32", "numpy.float64",
        "jax.numpy.float32", "jax.numpy.float64",
    }
)  # fmt: skip
# numpy.random functions: the position of their `size` parameter ("*" for `rand(d0, d1, ...)`).
# Array methods whose result has the receiver's elements (`np.random.rand(n).astype(f32)`).
SIZE_KEEPING_METHODS = frozenset({"astype", "reshape", "copy"})
_NUMPY_RANDOM = {
    "rand": "*", "randn": "*",
    "random": 0, "random_sample": 0, "sample": 0, "ranf": 0, "standard_normal": 0,
    "normal": 2, "uniform": 2, "randint": 2, "lognormal": 2, "binomial": 2, "poisson": 1,
    "exponential": 1, "standard_exponential": 0,
}  # fmt: skip
_SQUARE = {"N": "M"}  # `eye(N)` is N x N unless M is given


def first_argument_of_conversion(qualname: str) -> bool:
    return qualname in CONVERSIONS


def elements(
    qualname: str,
    args: Sequence[tuple[str | None, T]],
    ints: Callable[[T], list[int] | None],
) -> int | None:
    """The element count of `qualname(*args)`; None when a size is not a literal or the
    function is not a known constructor. `ints` reads one argument as the integers it
    spells (`(3, 4)` -> [3, 4], `n` bound to `5` -> [5]); None when it cannot."""
    if qualname.startswith("numpy.random."):
        return _numpy_random(qualname.rsplit(".", 1)[1], args, ints)
    name = (
        qualname.replace("numpy.", "jax.numpy.", 1) if qualname.startswith("numpy.") else qualname
    )
    facts = static_parameters(name)
    if facts is None or not facts.always:
        return None
    bound = facts.bind(args)
    if bound is None:
        return None
    if name.endswith(".arange"):  # `arange(n)`: n elements (the largest bound, roughly)
        values = [ints(bound[p]) for p in ("start", "stop") if p in bound]
        if not values or any(v is None or len(v) != 1 for v in values):
            return None
        return max(abs(v[0]) for v in values)  # type: ignore[index]
    total = 1
    for parameter in sorted(facts.always):
        if parameter not in bound:
            square = next((n for n, m in _SQUARE.items() if m == parameter), None)
            if square is not None and square in bound:
                continue  # counted twice below
            return None
        value = ints(bound[parameter])
        if value is None:
            return None
        total *= math.prod(value)
        if parameter in _SQUARE and _SQUARE[parameter] not in bound:
            total *= math.prod(value)
    if name.endswith(".identity"):
        total *= total
    return total


def _numpy_random(
    name: str, args: Sequence[tuple[str | None, T]], ints: Callable[[T], list[int] | None]
) -> int | None:
    where = _NUMPY_RANDOM.get(name)
    if where is None:
        return None
    if where == "*":
        if any(keyword is not None for keyword, _ in args) or not args:
            return None
        values = [ints(arg) for _, arg in args]
        if any(v is None for v in values):
            return None
        return math.prod(math.prod(v) for v in values)  # type: ignore[arg-type]
    size = next((arg for keyword, arg in args if keyword == "size"), None)
    positional = [arg for keyword, arg in args if keyword is None]
    if size is None and len(positional) > where:  # type: ignore[operator]
        size = positional[where]  # type: ignore[index]
    if size is None:
        return None
    value = ints(size)
    return math.prod(value) if value is not None else None
