"""The data every front end consumes: findings, their fixes and edits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]
Applicability = Literal["safe", "unsafe"]

DOCS_BASE_URL = "https://github.com/jitlint/jitlint/blob/main/rules/"


def rule_url(code: str) -> str:
    return f"{DOCS_BASE_URL}{code}.md"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based positions (end column exclusive). In a notebook,
    the positions are in code cell `cell` (numbered from 1 among all its cells)."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    cell: int | None = None


@dataclass(frozen=True)
class Fix:
    """The edits that fix a finding, and whether they are safe to apply."""

    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Diagnostic:
    """One finding: the rule, the message and the span it covers in a file."""

    code: str
    name: str
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: Severity = "error"
    fix: Fix | None = None
    help: str | None = None
    # In a notebook: the cell (numbered from 1 among all its cells, as Jupyter and ruff
    # count them) that `line` and `column` are in.
    cell: int | None = None
    # "contract" when the finding is in code traced only by a framework's contract (a
    # module's `__call__` with no jitted caller in the run), not by a call the run shows.
    traced_by: str | None = None

    @property
    def url(self) -> str:
        return rule_url(self.code)

    @property
    def where(self) -> str:
        """The path, and in a notebook the cell: `nb.ipynb:cell 3` (ruff's spelling)."""
        return self.path if self.cell is None else f"{self.path}:cell {self.cell}"

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.code)

    def to_json(self) -> dict[str, object]:
        fix = None
        if self.fix is not None:
            fix = {
                "applicability": self.fix.applicability,
                "message": self.fix.message,
                "edits": [_edit_json(e) for e in self.fix.edits],
            }
        data: dict[str, object] = {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "path": self.path,
        }
        if self.cell is not None:  # notebooks only: a .py finding keeps the documented keys
            data["cell"] = self.cell
        if self.traced_by is not None:
            data["traced_by"] = self.traced_by
        return {
            **data,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "fix": fix,
            "url": self.url,
        }


def _edit_json(edit: Edit) -> dict[str, object]:
    data: dict[str, object] = {} if edit.cell is None else {"cell": edit.cell}
    return {
        **data,
        "line": edit.line,
        "column": edit.column,
        "end_line": edit.end_line,
        "end_column": edit.end_column,
        "content": edit.content,
    }
