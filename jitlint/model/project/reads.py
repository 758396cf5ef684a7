"""What resolving one file's outbound records looked up, so that the project pass resolves
again only the files whose records, or whose looked-up entries, changed (files.py
`inbound_for`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class NotedLookups(Mapping[str, Any]):
    """A by-path table (defs, re-exports, exports) that notes each path looked up in it,
    found or not. Resolution only looks paths up; reading the table whole would escape the
    note, so it raises."""

    __slots__ = ("_seen", "_table")

    def __init__(self, table: Mapping[str, Any], seen: set[str]) -> None:
        self._table = table
        self._seen = seen

    def __getitem__(self, path: str) -> Any:
        self._seen.add(path)
        return self._table[path]

    def get(self, path: str, default: Any = None) -> Any:
        self._seen.add(path)
        return self._table.get(path, default)

    def __contains__(self, path: object) -> bool:
        self._seen.add(path)  # type: ignore[arg-type]
        return path in self._table

    def __iter__(self) -> Iterator[str]:
        raise TypeError("only lookups by path are noted")

    def __len__(self) -> int:
        raise TypeError("only lookups by path are noted")

    def __bool__(self) -> bool:
        raise TypeError("only lookups by path are noted")


def changed_paths(before: Mapping[str, Any], after: Mapping[str, Any]) -> set[str]:
    """The paths whose entry differs between two by-path tables (added and removed ones too)."""
    out = set()
    for path in before.keys() | after.keys():
        old, new = before.get(path), after.get(path)
        if old is not new and old != new:
            out.add(path)
    return out
