"""What one lint's JAX model read of the records other files sent it (`ctx.inbound`), so
that the project pass skips a relint whose new records it never read (engine/linter.py
`may_change`; the TF model's side is `TfReads`, model/tf_records.py).

The model reads its records by name (`inbound.get(name)`), asks whether there are any, and
walks the names twice: for the ones whose head the file defines (its traced functions and
the classes it constructs) and for the ones holding a part (`.__selfcalls__`). Only those
questions are noted; any other reading (iterating the mapping, copying it) is noted as
reading every record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any


@dataclass
class _Noted:
    """What the JAX model read of one function's inbound records."""

    names: set[str] = field(default_factory=set)
    key_parts: set[str] = field(default_factory=set)
    any_record: bool = False
    defined_names: bool = False
    whole: bool = False


class NotedInbound(Mapping[str, Sequence[Any]]):
    """`ctx.inbound` in the project pass: records by function name, noting what is read."""

    __slots__ = ("_by_name", "_noted")

    def __init__(self, by_name: Mapping[str, Sequence[Any]]) -> None:
        self._by_name = by_name
        self._noted = _Noted()

    def __getitem__(self, name: str) -> Sequence[Any]:
        self._noted.names.add(name)
        return self._by_name[name]

    def get(self, name: str, default: Any = None) -> Any:
        self._noted.names.add(name)
        return self._by_name.get(name, default)

    def __contains__(self, name: object) -> bool:
        self._noted.names.add(name)  # type: ignore[arg-type]
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        self._noted.whole = True
        return iter(self._by_name)

    def __len__(self) -> int:
        self._noted.whole = True
        return len(self._by_name)

    def __bool__(self) -> bool:
        self._noted.any_record = True
        return bool(self._by_name)

    def reads(self) -> JaxReads:
        noted = self._noted
        return JaxReads(
            frozenset(noted.names),
            frozenset(noted.key_parts),
            noted.any_record,
            noted.defined_names,
            noted.whole,
        )


def defined_names(inbound: Mapping[str, Sequence[Any]]) -> Iterator[str]:
    """Every name of `inbound`, in order, for a caller that keeps only those whose head
    (before the first dot) is a top-level `def` or class of the file: the records of the
    others are never read."""
    if type(inbound) is NotedInbound:
        inbound._noted.defined_names = True
        return iter(inbound._by_name)
    return iter(inbound)


def any_name_holding(inbound: Mapping[str, Sequence[Any]], part: str) -> bool:
    """Whether a name of `inbound` holds `part`."""
    if type(inbound) is NotedInbound:
        inbound._noted.key_parts.add(part)
        return any(part in name for name in inbound._by_name)
    return any(part in name for name in inbound)


@dataclass(frozen=True)
class JaxReads:
    """What `NotedInbound` noted: the names looked up, the parts asked of every name,
    whether it asked if there were any records, walked the names the file defines, or read
    them all."""

    names: frozenset[str]
    key_parts: frozenset[str]
    any_record: bool
    defined_names: bool
    whole: bool

    def to_json(self) -> list[Any]:
        flags = [self.any_record, self.defined_names, self.whole]
        return [sorted(self.names), sorted(self.key_parts), *flags]

    @staticmethod
    def from_json(data: Any) -> JaxReads | None:
        """None for anything but what `to_json` writes (read as "unknown")."""
        if not isinstance(data, list) or len(data) != 5:
            return None
        names, parts, *flags = data
        lists = names, parts
        if not all(isinstance(x, list) and all(isinstance(i, str) for i in x) for x in lists):
            return None
        if not all(isinstance(flag, bool) for flag in flags):
            return None
        return JaxReads(frozenset(names), frozenset(parts), *flags)

    def differ(self, before: Sequence[Any], after: Sequence[Any], defs: frozenset[str]) -> bool:
        """Whether these reads could tell two lists of records (in the order the lint
        groups them by `function`) apart; `defs`: the file's top-level names."""
        if before == after:
            return False
        if self.whole or (self.any_record and bool(before) != bool(after)):
            return True
        tests: list[Callable[[str], bool]] = [self.names.__contains__]
        if self.defined_names:
            tests.append(lambda name: name.partition(".")[0] in defs)
        tests.extend(partial(_holds, part) for part in sorted(self.key_parts))
        return any(
            [r for r in before if test(r.function)] != [r for r in after if test(r.function)]
            for test in tests
        )


def _holds(part: str, name: str) -> bool:
    return part in name
