"""Turn 1-based (line, column) edits into text changes, choosing a non-overlapping set."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from jitlint.diagnostics import Diagnostic, Edit

# Python's own line breaks; str.splitlines() would also split on \f, \x1c, \u2028 and more.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


def offsets(text: str, edit: Edit, starts: Sequence[int] | None = None) -> tuple[int, int]:
    starts = starts if starts is not None else line_starts(text)

    def offset(line: int, column: int) -> int:
        if line - 1 >= len(starts):
            return len(text)
        return starts[line - 1] + column - 1

    return offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply edits that do not overlap (insertions at one point keep their order)."""
    starts = line_starts(text)
    spans = sorted(
        ((*offsets(text, e, starts), index, e.content) for index, e in enumerate(edits)),
        key=lambda item: (item[0], item[1], item[2]),
    )
    out, cursor = [], 0
    for start, end, _, content in spans:
        if start < cursor:
            raise ValueError("overlapping edits")
        out.append(text[cursor:start])
        out.append(content)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def choose(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[list[Diagnostic], list[Edit]]:
    """Diagnostics whose fixes can go together in one pass, in source order, and their edits.

    A fix is taken whole or not at all; it is left for the next pass when any of its edits
    overlaps an edit already taken. The same insertion offered by two fixes (an import both
    need) is made once.
    """
    starts = line_starts(text)
    taken: list[tuple[int, int]] = []
    inserted: set[tuple[int, str]] = set()
    chosen: list[Diagnostic] = []
    edits: list[Edit] = []
    for diagnostic in sorted(diagnostics, key=Diagnostic.sort_key):
        assert diagnostic.fix is not None
        spans = [(offsets(text, e, starts), e) for e in diagnostic.fix.edits]
        fresh = []
        clash = False
        for (start, end), edit in spans:
            if start == end and (start, edit.content) in inserted:
                continue  # the same import, already being added
            if any(start < t_end and t_start < end for t_start, t_end in taken) or any(
                start == end == t_start == t_end for t_start, t_end in taken
            ):
                clash = True
                break
            if start != end and any(
                t_start == t_end and start < t_start < end for t_start, t_end in taken
            ):
                clash = True
                break
            fresh.append(((start, end), edit))
        if clash:
            continue
        for (start, end), edit in fresh:
            taken.append((start, end))
            if start == end:
                inserted.add((start, edit.content))
            edits.append(edit)
        chosen.append(diagnostic)
    return chosen, edits
