"""A notebook's code cells as one Python text, and the way back to cells.

Cells share one namespace (`import jax` in cell 1 serves `@jax.jit` in cell 4), so the code
cells are linted together, as ruff does: joined in order, each followed by a boundary comment
line. IPython syntax is masked line for line, so positions stay put: a line magic (`%time
f(x)`), a shell escape (`!pip install jax`), an assignment from either (`files = !ls`) and a
help line (`jnp.where?`) become `pass` with a numbered marker comment, at the same
indentation; a backslash continues the mask onto the next line. A cell starting with a
cell magic (`%%bash`) is not Python and is skipped, except the magics whose body is Python
(`%%time`, `%%timeit`, `%%capture`, `%%prun`), where only the magic line is masked.

Fixes run on the joined text. The fixed text is split back at the boundary lines and the
markers are replaced by the original lines; if a fix moved, merged or dropped a boundary or
a marker, the split fails and the notebook is left as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from jitlint.diagnostics import Diagnostic, Edit, Fix
from jitlint.notebook.document import CodeCell, lines_of

PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
_ASSIGNED_ESCAPE = re.compile(r"[\w.,()\[\] \t]+=[ \t]*[%!]")
_HELP = re.compile(r"(\?\??[\w.]+|[\w.]+\?\??)[ \t]*")
_AT_LINE = re.compile(r"\bat line (\d+)\b")


def _is_magic(stripped: str) -> bool:
    return (
        stripped.startswith(("%", "!"))
        or _ASSIGNED_ESCAPE.match(stripped) is not None
        or _HELP.fullmatch(stripped) is not None
    )


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


class _LogicalLines:
    """Just enough of Python's tokenizer to tell whether the next line starts a logical line:
    open brackets, strings (triple-quoted ones span lines) and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None  # the open string's delimiter
        self.continued = False

    def at_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        at, size = 0, len(line)
        self.continued = False
        while at < size:
            char = line[at]
            if self.quote is not None:
                if char == "\\":
                    at += 2
                    continue
                if line.startswith(self.quote, at):
                    at += len(self.quote)
                    self.quote = None
                    continue
                at += 1
                continue
            if char == "#":
                return
            if char in "\"'":
                triple = line[at : at + 3]
                self.quote = triple if triple in ('"""', "'''") else char
                at += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and at == size - 1:
                self.continued = True
            at += 1
        if self.quote is not None and len(self.quote) == 1:
            # A one-quote string ends with its line (continued only by a backslash).
            self.continued = line.endswith("\\")
            if not self.continued:
                self.quote = None


@dataclass
class Joined:
    """The linted code cells of a notebook as one Python text."""

    text: str
    cells: list[CodeCell]  # the cells in `text`, in order
    boundary: str  # the boundary comment's tag
    magic: str  # the magic marker's tag
    magics: dict[int, tuple[int, str]] = field(default_factory=dict)  # id -> (cell, line)

    @classmethod
    def build(cls, cells: list[CodeCell]) -> Joined:
        everything = "".join(cell.text for cell in cells)
        boundary, magic = "jitlint-cell", "jitlint-magic"
        while boundary in everything or magic in everything:  # never mistake user text
            boundary, magic = boundary + "-", magic + "-"
        joined = cls("", [], boundary, magic)
        parts = []
        for cell in cells:
            masked = joined._mask(cell)
            if masked is None:
                continue
            joined.cells.append(cell)
            parts.append(masked + f"# {boundary} {cell.number}\n")
        joined.text = "".join(parts)
        return joined

    def _mask(self, cell: CodeCell) -> str | None:
        """The cell's text with IPython syntax masked, ending in a newline; None for a cell
        that is no Python (blank, or a cell magic other than a Python one)."""
        if not cell.text.strip():
            return None
        lines = lines_of(cell.text)
        masked = []
        continued = False
        indent = ""
        logical = _LogicalLines()
        for number, line in enumerate(lines, start=1):
            body = line.rstrip("\r\n")
            stripped = body.lstrip()
            if number == 1 and stripped.startswith("%%"):
                name = stripped[2:].split(maxsplit=1)[0] if stripped[2:].strip() else ""
                if name not in PYTHON_CELL_MAGICS:
                    return None
            # IPython reads its syntax only where a logical line starts: `% b` inside
            # brackets is a modulo, `!x` inside a string is text.
            if continued or (logical.at_start() and stripped and _is_magic(stripped)):
                marker = len(self.magics) + 1
                self.magics[marker] = (cell.number, line)
                if not continued:  # a line the magic continues onto keeps the magic's indent
                    indent = body[: len(body) - len(stripped)]
                line = f"{indent}pass  # {self.magic} {marker}" + (_ending(line) or "\n")
                continued = body.endswith("\\")
            else:
                logical.feed(body)
            masked.append(line)
        text = "".join(masked)
        return text if text.endswith(("\n", "\r")) else text + "\n"

    def cell_map(self, text: str) -> CellMap:
        """Where the cells are in `text` (this joined text, or a fixed one)."""
        tag = re.compile(rf"# {re.escape(self.boundary)} (\d+)\r?\n?\Z")
        magic = re.compile(rf"[ \t]*pass  # {re.escape(self.magic)} \d+\r?\n?\Z")
        spans: list[tuple[int, int, int]] = []
        magic_lines = set()
        start = 1
        for number, line in enumerate(lines_of(text), start=1):
            found = tag.match(line)
            if found:
                spans.append((start, number - start, int(found.group(1))))
                start = number + 1
            elif magic.match(line):
                magic_lines.add(number)
        open_ended = {c.number for c in self.cells if c.text.endswith(("\n", "\r"))}
        return CellMap(spans, frozenset(magic_lines), frozenset(open_ended))

    def split(self, text: str) -> dict[int, str] | None:
        """Each cell's text (cell number -> text) in a fixed joined `text`, with the masked
        lines put back; None when the boundaries or markers are not all where they were."""
        tag = re.compile(rf"# {re.escape(self.boundary)} (\d+)\r?\n?\Z")
        marker = re.compile(rf"([ \t]*)pass  # {re.escape(self.magic)} (\d+)(\r?\n?)\Z")
        texts: dict[int, str] = {}
        seen: set[int] = set()
        current: list[str] = []
        order = iter(self.cells)
        for line in lines_of(text):
            found = tag.match(line)
            if found:
                cell = next(order, None)
                if cell is None or int(found.group(1)) != cell.number:
                    return None
                texts[cell.number] = self._restore_end(cell, "".join(current))
                current = []
                continue
            masked = marker.match(line)
            if masked:
                key = int(masked.group(2))
                cell_number, original = self.magics.get(key, (0, ""))
                expected = self.cells[len(texts)].number if len(texts) < len(self.cells) else -1
                if key in seen or cell_number != expected:
                    return None
                seen.add(key)
                line = masked.group(1) + original.rstrip("\r\n").lstrip() + _ending(original)
            current.append(line)
        if next(order, None) is not None or "".join(current).strip() or seen != set(self.magics):
            return None
        return texts

    @staticmethod
    def _restore_end(cell: CodeCell, text: str) -> str:
        """Without the newline the join added to a cell whose text did not end with one."""
        if not cell.text.endswith(("\n", "\r")) and text.endswith("\n"):
            return text[:-1]
        return text


@dataclass(frozen=True)
class CellMap:
    """Joined-text lines -> (cell, line in the cell)."""

    spans: list[tuple[int, int, int]]  # (first line, line count, cell number) of each cell
    magic_lines: frozenset[int]
    open_ended: frozenset[int]  # cells whose own text ends with a line break

    def locate(self, line: int) -> tuple[int, int, int] | None:
        """(cell number, line in the cell, line count of the cell) for a line of a cell;
        None on a boundary line or past the last cell."""
        for first, count, number in self.spans:
            if first <= line < first + count:
                return number, line - first + 1, count
        return None

    def _nearest(self, line: int) -> tuple[int, int, int]:
        """As `locate`; a boundary line (or past the end) counts as its cell's last line
        (where a parse error at the end of a cell is reported)."""
        found = self.locate(line)
        if found is not None:
            return found
        before = [span for span in self.spans if span[0] <= line] or self.spans[:1]
        _, count, number = before[-1] if before else (1, 1, 1)
        return number, max(count, 1), count

    def diagnostic(self, d: Diagnostic) -> Diagnostic:
        """`d` positioned in its cell; its fix is dropped if an edit cannot be (one that
        crosses a cell boundary or touches a masked IPython line)."""
        if not self.spans:
            return d
        cell, line, _ = self._nearest(d.line)
        end_cell, end_line, _ = self._nearest(d.end_line)
        end_column = d.end_column
        if end_cell != cell:  # only a parse error can run past its cell
            end_line, end_column = line, d.column + 1
        fix = d.fix
        if fix is not None:
            edits = [self.edit(e) for e in fix.edits]
            fix = None if None in edits else Fix(fix.applicability, fix.message, tuple(edits))  # type: ignore[arg-type]
        message = _AT_LINE.sub(lambda found: self._at_line(found, cell), d.message)
        return replace(
            d,
            message=message,
            cell=cell,
            line=line,
            end_line=end_line,
            end_column=end_column,
            fix=fix,
        )

    def _at_line(self, found: re.Match[str], cell: int) -> str:
        """A message's "at line N" (the tracing model names where a function is compiled or
        called) in cell terms: "at line L" in the finding's own cell, else "at cell C, line L"."""
        other, line = self.line(int(found.group(1)))
        return f"at line {line}" if other == cell else f"at cell {other}, line {line}"

    def edit(self, edit: Edit) -> Edit | None:
        if any(line in self.magic_lines for line in range(edit.line, edit.end_line + 1)):
            return None
        start = self.locate(edit.line)
        if start is None:
            return None
        cell, line, count = start
        end = self.locate(edit.end_line)
        if end is not None:
            if end[0] != cell:
                return None
            end_line, end_column = end[1], edit.end_column
        elif edit.end_column == 1 and edit.end_line == edit.line + (count - line) + 1:
            # Up to the start of the boundary line: the end of the cell, past its last
            # line break, which exists only in a cell whose own text ends with one.
            if cell not in self.open_ended:
                return None
            end_line, end_column = count + 1, 1
        else:
            return None
        return Edit(line, edit.column, end_line, end_column, edit.content, cell)

    def line(self, line: int) -> tuple[int, int]:
        """(cell number, line in the cell) of a joined line, boundaries counting as above."""
        cell, in_cell, _ = self._nearest(line)
        return cell, in_cell
