"""A notebook file: its code cells, where their sources are in the JSON, and writing one back.

Only the `source` values of changed code cells are rewritten, in place in the file's text:
outputs, metadata, key order, indentation and every other byte stay as they were. A
rewritten source keeps the shape it had (one string, or nbformat's list of lines with the
same line breaks and indentation between items).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_BOM = "\ufeff"
_SPACE = re.compile(r"[ \t\n\r]*")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_DECODER = json.JSONDecoder()


class NotebookError(Exception):
    """The file is not a notebook jitlint can read; carries a 1-based position in the file."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def lines_of(text: str) -> list[str]:
    """The lines of `text` with their endings, split where Python's tokenizer splits them
    (`str.splitlines` also splits on form feeds and other separators)."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class CodeCell:
    """A notebook's code cell."""

    number: int  # 1-based among all cells (markdown too), as Jupyter and ruff count them
    index: int  # 0-based index in the `cells` array
    text: str  # the cell's source


@dataclass
class Notebook:
    """A notebook file: its code cells and where their sources are in its text."""

    text: str  # the file's JSON text, without a BOM
    has_bom: bool
    cells: list[CodeCell]  # the code cells, in order
    python: bool  # the kernel's language is Python (or not stated)
    spans: dict[int, tuple[int, int]]  # cell index -> offsets of its `source` value in `text`

    def rewrite(self, sources: dict[int, str]) -> str:
        """The file's text with the code cells at these indexes given new sources."""
        text = self.text
        for index in sorted(sources, reverse=True):
            start, end = self.spans[index]
            text = text[:start] + self._render(start, end, sources[index]) + text[end:]
        return text

    def _render(self, start: int, end: int, source: str) -> str:
        old = self.text[start:end]
        ascii_only = self.text.isascii() and "\\u" in self.text

        def dumps(value: str) -> str:
            return json.dumps(value, ensure_ascii=ascii_only)

        if not old.startswith("["):
            return dumps(source)
        lines = lines_of(source)
        if not lines:
            return "[]"
        items: list[tuple[int, int]] = []

        def item(_: int, at: int) -> int:
            items.append((at, _value_end(self.text, at)))
            return items[-1][1]

        _array(self.text, start, item)
        newline = "\r\n" if "\r\n" in self.text else "\n"
        if items:
            opening = self.text[start + 1 : items[0][0]]
            closing = self.text[items[-1][1] : end - 1]
            if len(items) > 1:
                separator = self.text[items[0][1] : items[1][0]]
            else:
                separator = "," + opening if "\n" in opening else ", "
        else:  # `[]`: indent the items one step deeper than the `"source"` key's line
            line_start = self.text.rfind("\n", 0, start) + 1
            key_indent = re.match(r"[ \t]*", self.text[line_start:]).group()  # type: ignore[union-attr]
            opening = newline + key_indent + self._indent_unit()
            closing = newline + key_indent
            separator = "," + opening
        return "[" + opening + separator.join(dumps(line) for line in lines) + closing + "]"

    def _indent_unit(self) -> str:
        start = _SPACE.match(self.text).end()  # type: ignore[union-attr]
        first_key = self.text.find('"', start)
        leading = self.text[start + 1 : first_key]
        return leading.rsplit("\n", 1)[-1] if "\n" in leading else " "


def read_notebook(data: bytes | str) -> Notebook:
    """The notebook in `data`; NotebookError when it is not nbformat-4 JSON with text cells."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise NotebookError(
                f"cannot decode byte {data[exc.start]:#04x} as utf-8 (notebooks are UTF-8)",
                line,
                column,
            ) from exc
    else:
        text = data
    has_bom = text.startswith(_BOM)
    if has_bom:
        text = text[1:]
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"not a notebook: invalid JSON: {exc.msg}"
        raise NotebookError(message, exc.lineno, exc.colno) from exc
    except RecursionError as exc:
        raise NotebookError("not a notebook: JSON nested too deeply") from exc
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotebookError("not a notebook: no `cells` list (jitlint reads nbformat 4)")
    spans = _source_spans(text)
    cells = []
    for index, cell in enumerate(document["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookError(f"cell {index + 1}: `source` is not text")
        if index in spans:
            cells.append(CodeCell(index + 1, index, source))
    return Notebook(text, has_bom, cells, _is_python(document.get("metadata")), spans)


def _is_python(metadata: Any) -> bool:
    if not isinstance(metadata, dict):
        return True
    stated = []
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        table = metadata.get(key)
        if isinstance(table, dict) and isinstance(table.get(field), str):
            stated.append(table[field].lower())
    return all(language == "python" for language in stated)


# ---- where each cell's source is in the JSON text ------------------------------------------
def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]


def _value_end(text: str, at: int) -> int:
    return _DECODER.raw_decode(text, at)[1]


def _object(text: str, at: int, member: Callable[[str, int], int]) -> int:
    """Walk the object at `at`; `member(key, value_start)` returns the value's end."""
    at = _skip(text, at + 1)
    if text[at] == "}":
        return at + 1
    while True:
        key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
        at = _skip(text, _skip(text, at) + 1)  # past the colon
        at = _skip(text, member(key, at))
        if text[at] == ",":
            at = _skip(text, at + 1)
            continue
        return at + 1


def _array(text: str, at: int, item: Callable[[int, int], int]) -> int:
    """Walk the array at `at`; `item(index, value_start)` returns the value's end."""
    at = _skip(text, at + 1)
    if text[at] == "]":
        return at + 1
    index = 0
    while True:
        at = _skip(text, item(index, at))
        index += 1
        if text[at] == ",":
            at = _skip(text, at + 1)
            continue
        return at + 1


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Cell index -> (start, end) of that cell's `source` value; text already parsed as JSON,
    so the walk meets no syntax errors. Where a key repeats, the last one counts, as in
    `json.loads`."""
    spans: dict[int, tuple[int, int]] = {}

    def cell(index: int, at: int) -> int:
        if text[at] != "{":
            return _value_end(text, at)

        def member(key: str, value_at: int) -> int:
            end = _value_end(text, value_at)
            if key == "source":
                spans[index] = (value_at, end)
            return end

        return _object(text, at, member)

    def top(key: str, at: int) -> int:
        if key != "cells" or text[at] != "[":
            return _value_end(text, at)
        spans.clear()
        return _array(text, at, cell)

    _object(text, _skip(text, 0), top)
    return spans
