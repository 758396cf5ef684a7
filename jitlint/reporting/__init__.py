"""Output formats. Each formatter takes the run's diagnostics and returns text."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from jitlint.reporting.text import format_statistics

# Each `--output-format`: the module of this package that writes it and its function.
_WRITERS = {
    "full": ("text", "format_full"),
    "concise": ("text", "format_concise"),
    "grouped": ("grouped", "format_grouped"),
    "json": ("json_format", "format_json"),
    "json-lines": ("lines", "format_json_lines"),
    "sarif": ("sarif", "format_sarif"),
    "github": ("github", "format_github"),
    "gitlab": ("ci_reports", "format_gitlab"),
    "junit": ("ci_reports", "format_junit"),
    "pylint": ("lines", "format_pylint"),
    "rdjson": ("ci_reports", "format_rdjson"),
    "azure": ("lines", "format_azure"),
}


class _Formats(Mapping[str, Callable[..., str]]):
    """The formatters by name, each module imported when its format is asked for: a run
    writes one format, and the others' modules (hashing for GitLab's fingerprints, SARIF's
    tables) would cost every one-file run ~3 ms."""

    def __getitem__(self, name: str) -> Callable[..., str]:
        module, function = _WRITERS[name]
        writer: Any = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        return writer

    def __iter__(self) -> Iterator[str]:
        return iter(_WRITERS)

    def __len__(self) -> int:
        return len(_WRITERS)


FORMATS: Mapping[str, Callable[..., str]] = _Formats()
# Read by people: coloured, followed by a summary. The others are read by tools and own
# their stream (the summary of `--fix` goes to stderr beside them).
TEXT_FORMATS = ("full", "concise", "grouped")
# Formats that read the source lines of the files with findings.
SOURCE_FORMATS = ("full", "rdjson")

__all__ = ["FORMATS", "SOURCE_FORMATS", "TEXT_FORMATS", "format_statistics"]
