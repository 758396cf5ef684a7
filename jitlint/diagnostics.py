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
    """Replace the text between two 1-based positions (end column exclusive)."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Diagnostic:
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

    @property
    def url(self) -> str:
        return rule_url(self.code)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> dict[str, object]:
        fix = None
        if self.fix is not None:
            fix = {
                "applicability": self.fix.applicability,
                "message": self.fix.message,
                "edits": [
                    {
                        "line": e.line,
                        "column": e.column,
                        "end_line": e.end_line,
                        "end_column": e.end_column,
                        "content": e.content,
                    }
                    for e in self.fix.edits
                ],
            }
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "fix": fix,
            "url": self.url,
        }
