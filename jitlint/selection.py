"""Which rules run: ruff's selector semantics over codes, prefixes and `ALL`.

A code is enabled when its most specific matching selector comes from the select side
(`select` + `extend-select`) rather than from `ignore`; on a tie, ignore wins. So
`select = ["JIT1"], ignore = ["JIT110"]` disables JIT110, and `select = ["JIT110"],
ignore = ["JIT1"]` keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from jitlint.rules import default_codes, known_codes


class UnknownSelector(ValueError):
    pass


def check_selector(selector: str) -> str:
    selector = selector.strip().upper()
    if selector == "ALL":
        return selector
    if not any(code.startswith(selector) for code in known_codes()) or not selector:
        raise UnknownSelector(f"unknown rule selector {selector!r}")
    return selector


def _specificity(selectors: Iterable[str], code: str) -> int:
    best = -1
    for selector in selectors:
        if selector == "ALL":
            best = max(best, 0)
        elif code.startswith(selector):
            best = max(best, len(selector))
    return best


@dataclass(frozen=True)
class Layer:
    """One source of selectors: the config file, then the command line (ruff's layering)."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)


def resolve_layers(layers: Iterable[Layer]) -> set[str]:
    """The enabled codes after applying `layers` in order over the default set.

    A layer with `select` starts afresh from it (so `--select` on the command line overrides
    the file's select and ignore); a layer without it adjusts what came before. Within a layer
    the most specific selector wins, and ignore wins a tie.
    """
    enabled = default_codes()
    for layer in layers:
        for code in known_codes():
            picked = _specificity(layer.extend_select, code)
            ignored = _specificity(layer.ignore, code)
            if layer.select is not None:
                picked = max(picked, _specificity(layer.select, code))
                on = picked >= 0 and picked > ignored
            elif picked >= 0 and picked > ignored:
                on = True
            elif ignored >= 0:
                on = False
            else:
                on = code in enabled
            if on:
                enabled.add(code)
            else:
                enabled.discard(code)
    return enabled


def resolve(
    select: Iterable[str] | None,
    extend_select: Iterable[str] = (),
    ignore: Iterable[str] = (),
) -> set[str]:
    """The enabled codes for one layer of selectors over the defaults."""
    chosen = list(select) if select is not None else None
    return resolve_layers([Layer(chosen, list(extend_select), list(ignore))])


def without(codes: set[str], prefixes: Iterable[str]) -> set[str]:
    """`codes` minus those matched by `prefixes` (per-file ignores)."""
    prefixes = tuple("" if p == "ALL" else p for p in prefixes)
    if not prefixes:
        return codes
    return {code for code in codes if not code.startswith(prefixes)}
