"""Shared test helpers: inline expectations and running the CLI in-process."""

from __future__ import annotations

import importlib.util
import io
import re
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from jitlint.engine.linter import lint_text
from jitlint.frontends.cli import main

_EXPECT = re.compile(r"#\s*error:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")


def expected(source: str) -> set[tuple[int, str]]:
    """(line, code) pairs marked in `source` with `# error: CODE[, CODE]` comments."""
    marks = set()
    for number, line in enumerate(source.splitlines(), 1):
        match = _EXPECT.search(line)
        if match:
            marks.update((number, c.strip()) for c in match.group("codes").split(","))
    return marks


def found(source: str, codes: set[str], path: str = "case.py") -> set[tuple[int, str]]:
    result = lint_text(textwrap.dedent(source), path, codes)
    assert not result.errors, result.errors
    return {(d.line, d.code) for d in result.diagnostics}


def run_cli(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run `jitlint ARGS` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        import sys

        saved = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse exits on usage errors and --version
                status = exc.code if isinstance(exc.code, int) else 2
    finally:
        if stdin is not None:
            sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def installed_sources(package: str) -> list[Path]:
    """Every .py file of an installed package, sorted; found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted(
        path
        for location in spec.submodule_search_locations
        for path in Path(location).rglob("*.py")
        if path.is_file()
    )
