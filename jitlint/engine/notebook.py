"""Lint and fix a notebook: its code cells joined (notebook/joined.py), findings reported per cell.

Positions are ruff's for notebooks: `path:cell N:line:column`, N counting every cell of the
notebook from 1 (markdown cells too, as Jupyter shows them), the line counted within the cell.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.files import diff_names
from jitlint.engine.fixloop.passes import fix_text
from jitlint.engine.linter import FileResult, lint_text
from jitlint.model.jax.crossfile.records import Outbound, Received
from jitlint.notebook.document import Notebook, NotebookError, read_notebook
from jitlint.notebook.joined import CellMap, Joined
from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE, size_problem
from jitlint.rules import rule_name


def lint_notebook(
    data: bytes | str,
    path: str,
    codes: Collection[str],
    rule_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    inbound: Sequence[Received] | None = None,
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> FileResult:
    """As `lint_text` for a notebook: findings carry their cell. In the project pass a
    notebook calls into the files of the run (its outbound records name their cell), but
    nothing can import it, so it has no defs or re-exports. `max_file_size` limits the
    size of its code cells, not of the file (outputs may hold large images)."""
    opened = _open(data, path, codes, max_file_size)
    if isinstance(opened, FileResult):
        return opened
    _, joined = opened
    result = lint_text(joined.text, path, codes, rule_options, inbound=inbound)
    cells = joined.cell_map(joined.text)
    result.diagnostics = sorted(
        (cells.diagnostic(d) for d in result.diagnostics), key=Diagnostic.sort_key
    )
    result.outbound = [_in_cell(record, cells) for record in result.outbound]
    result.defs, result.reexports = frozenset(), {}
    return result


@dataclass
class NotebookFix:
    """What fixing a notebook's code cells did."""

    text: str  # the file's new text; the original when nothing was fixed
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    changed: list[tuple[int, str, str]] = field(default_factory=list)  # (cell, old, new)

    def diff(self, path: str) -> str:
        """A unified diff per changed cell, headed `a/path:cell N` as ruff heads them (an
        absolute path without the prefixes, as engine/fixloop/files.py names a file's)."""
        old_name, new_name = diff_names(path)
        return "".join(
            "".join(
                difflib.unified_diff(
                    _newline_ended(old).splitlines(keepends=True),
                    _newline_ended(new).splitlines(keepends=True),
                    fromfile=f"{old_name}:cell {number}",
                    tofile=f"{new_name}:cell {number}",
                )
            )
            for number, old, new in self.changed
        )


def fix_notebook(
    data: bytes | str,
    path: str,
    codes: Collection[str],
    rule_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    unsafe: bool = False,
    fixable: Collection[str] | None = None,
    inbound: Sequence[Received] | None = None,
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> NotebookFix:
    """Fix a notebook's code cells; only their `source` values change in the file's text."""
    original_text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    opened = _open(data, path, codes, max_file_size)
    if isinstance(opened, FileResult):
        return NotebookFix(original_text, remaining=opened.diagnostics)
    notebook, joined = opened
    outcome = fix_text(
        joined.text, path, codes, rule_options, unsafe=unsafe, fixable=fixable, inbound=inbound
    )
    before = joined.cell_map(joined.text)
    applied = [before.diagnostic(d) for d in outcome.applied]
    fixed = NotebookFix(original_text, errors=list(outcome.errors))
    if not outcome.applied:
        fixed.remaining = [before.diagnostic(d) for d in outcome.remaining]
        return fixed
    texts = joined.split(outcome.source)
    if texts is None:
        rules = ", ".join(sorted({d.code for d in outcome.applied}))
        fixed.errors.append(
            f"{path}: internal error: the fixes of {rules} would move code across cells or "
            "over an IPython line; the notebook was left unchanged (please report this)"
        )
        original = lint_text(joined.text, path, codes, rule_options, inbound=inbound)
        fixed.remaining = [before.diagnostic(d) for d in original.diagnostics]
        return fixed
    sources = {}
    for cell in joined.cells:
        if texts[cell.number] != cell.text:
            sources[cell.index] = texts[cell.number]
            fixed.changed.append((cell.number, cell.text, texts[cell.number]))
    new_text = notebook.rewrite(sources)
    fixed.text = ("\ufeff" if notebook.has_bom else "") + new_text
    fixed.applied = applied
    after = joined.cell_map(outcome.source)
    fixed.remaining = sorted(
        (after.diagnostic(d) for d in outcome.remaining), key=Diagnostic.sort_key
    )
    return fixed


def cell_sources(data: bytes | str) -> dict[int, str]:
    """Each code cell's text by cell number (for source frames); empty if unreadable."""
    try:
        return {cell.number: cell.text for cell in read_notebook(data).cells}
    except NotebookError:
        return {}


def _open(
    data: bytes | str, path: str, codes: Collection[str], max_file_size: int | None
) -> tuple[Notebook, Joined] | FileResult:
    """The notebook and its joined code cells; or the result to report instead: JIT001 for a
    file that is no readable notebook or has too much code, nothing for a notebook of
    another language."""
    try:
        notebook = read_notebook(data)
    except NotebookError as problem:
        return _parse_error(path, codes, str(problem), problem.line, problem.column)
    if not notebook.python:
        return FileResult(path)
    joined = Joined.build(notebook.cells)
    problem = size_problem(len(joined.text.encode("utf-8")), max_file_size)
    if problem is not None:
        return _parse_error(path, codes, problem.replace("file is", "its code is", 1), 1, 1)
    return notebook, joined


def _parse_error(
    path: str, codes: Collection[str], message: str, line: int, column: int
) -> FileResult:
    result = FileResult(path)
    if "JIT001" in codes:
        result.diagnostics.append(
            Diagnostic("JIT001", rule_name("JIT001"), message, path, line, column, line, column + 1)
        )
    return result


def _in_cell(record: Outbound, cells: CellMap) -> Outbound:
    cell, line = cells.line(record.line)
    return dataclasses.replace(record, line=line, cell=cell)


def _newline_ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"
