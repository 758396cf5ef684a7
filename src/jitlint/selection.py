"""Which rules run: ruff's selector semantics over codes, prefixes and `ALL`.

A code is enabled when its most specific matching selector comes from the select side
(`select` + `extend-select`) rather than from `ignore`; on a tie, ignore wins. So
`select = ["JIT1"], ignore = ["JIT110"]` disables JIT110, and `select = ["JIT110"],
ignore = ["JIT1"]` keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable

from jitlint.rules import all_rules


class UnknownSelector(ValueError):
    pass


def check_selector(selector: str) -> str:
    selector = selector.strip().upper()
    if selector == "ALL":
        return selector
    if not any(code.startswith(selector) for code in all_rules()) or not selector:
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


def resolve(
    select: Iterable[str] | None,
    extend_select: Iterable[str] = (),
    ignore: Iterable[str] = (),
) -> set[str]:
    """The enabled codes. `select=None` means the default set (rules enabled by default)."""
    rules = all_rules()
    chosen = list(select) if select is not None else None
    extra, ignored = list(extend_select), list(ignore)
    enabled = set()
    for code, rule in rules.items():
        if chosen is None:
            picked = 0 if rule.default_enabled else -1  # the default set acts like ALL
        else:
            picked = _specificity(chosen, code)
        picked = max(picked, _specificity(extra, code))
        if picked >= 0 and picked > _specificity(ignored, code):
            enabled.add(code)
    return enabled


def without(codes: set[str], prefixes: Iterable[str]) -> set[str]:
    """`codes` minus those matched by `prefixes` (per-file ignores)."""
    prefixes = tuple("" if p == "ALL" else p for p in prefixes)
    if not prefixes:
        return codes
    return {code for code in codes if not code.startswith(prefixes)}
