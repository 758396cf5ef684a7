"""Abstract values: TRACED, STATIC or UNKNOWN (and PYTREE), and how they combine.

`PYTREE` is a traced value that may also be a container of arrays (a parameter, an element of
one): arithmetic and comparisons on it give TRACED arrays, but its truthiness is not reported,
because `if params:` on a dict of arrays is fine under jit. The lattice is deliberately
coarse: when two paths disagree the value becomes UNKNOWN, and UNKNOWN never produces a
finding. `analyzer.py` walks a function body with these values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

STATIC, TRACED, PYTREE, UNKNOWN = 0, 1, 2, 3
KIND_NAMES = {STATIC: "static", TRACED: "traced", PYTREE: "traced", UNKNOWN: "unknown"}


class Value:
    """An abstract value: its kind, why it is traced (a provenance tuple), whether it is a
    boolean array (for mask indexing), and for static values what Python type it is known to
    have ("list", "tuple", "ndarray", ...) when that matters to a rule."""

    __slots__ = ("boolean", "kind", "pytype", "why")

    def __init__(
        self, kind: int, why: tuple[Any, ...] | None = None, boolean: bool = False, pytype=None
    ) -> None:
        self.kind = kind
        self.why = why
        self.boolean = boolean
        self.pytype = pytype

    @property
    def traced(self) -> bool:
        return self.kind == TRACED or self.kind == PYTREE

    def __repr__(self) -> str:
        why = self.why[:2] if self.why else None
        return f"Value({KIND_NAMES[self.kind]}, {why!r}, bool={self.boolean})"


# Iterating a pytree of unknown structure yields a list's elements or a dict's (static)
# keys: traced for comparisons, but not shown to be a tracer when printed (see JIT107).
MAYBE_KEY = "element or key"
# `.items()` of a traced mapping, and one (key, value) pair of it.
ITEMS, ITEM = "items", "item"


def shows_tracer(value: Value) -> bool:
    """Whether printing `value` shows a tracer (a dict key it may be does not)."""
    return value.traced and value.pytype != MAYBE_KEY


S = Value(STATIC)
U = Value(UNKNOWN)


def join(a: Value, b: Value) -> Value:
    if a is b:
        return a
    if a.kind == b.kind:
        if a.kind == STATIC:
            # Never `a` itself without a pytype: it may be a narrowing marker (see `narrow`).
            return a if a.pytype is not None and a.pytype == b.pytype else S
        if a.kind == UNKNOWN:
            return U
        if a.boolean and not b.boolean:
            return Value(a.kind, a.why, False)
        if a.pytype != b.pytype:  # e.g. instances of two different pytree classes
            return Value(a.kind, a.why, a.boolean)
        return a
    if a.traced and b.traced:
        return Value(PYTREE, a.why)
    return U


def traced(why: tuple[Any, ...] | None, boolean: bool = False) -> Value:
    return Value(TRACED, why, boolean)


def first_traced(values: Sequence[Value]) -> Value | None:
    for value in values:
        if value.traced:
            return value
    return None


def combine(values: Sequence[Value]) -> Value:
    """Arithmetic-like combination: traced if any operand is, static if all are."""
    hit = first_traced(values)
    if hit is not None:
        return traced(hit.why)
    if all(v.kind == STATIC for v in values):
        return S
    return U


def container(values: Sequence[Value], pytype: str | None = None) -> Value:
    """A tuple/list/dict built from `values`: a pytree of tracers if any element is traced."""
    hit = first_traced(values)
    if hit is not None:
        return Value(PYTREE, hit.why)
    if all(v.kind == STATIC for v in values):
        return Value(STATIC, pytype=pytype) if pytype else S
    return U


# A Python constant known by value (a parameter left at its `True`/`False`/`None` default):
# STATIC, with the constant in `pytype`, so `if flag:` on it can be decided.
_LITERALS = {"True": "literal:True", "False": "literal:False", "None": "literal:None"}


def literal(text: str) -> Value | None:
    """The value of the constant spelled `text` (`True`, `False`, `None`), else None."""
    pytype = _LITERALS.get(text)
    return Value(STATIC, pytype=pytype) if pytype else None


def literal_truth(value: Value) -> bool | None:
    """The truth of a known constant; None for any other value."""
    if value.kind != STATIC or value.pytype not in _LITERALS.values():
        return None
    return value.pytype == "literal:True"


Env = dict[str, Value]
Marks = dict[str, tuple[Value, Value | None]]  # narrowed name -> (its marker, value before)


def join_envs(a: Env, b: Env) -> Env:
    out: Env = {}
    for name in a.keys() | b.keys():
        va, vb = a.get(name), b.get(name)
        out[name] = join(va, vb) if va is not None and vb is not None else U
    return out
