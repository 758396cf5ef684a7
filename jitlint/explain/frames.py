"""The user's frames of a traceback: files that exist here and are not the frameworks' or
Python's own, and the statement each frame's line belongs to."""

from __future__ import annotations

import ast
import os
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from jitlint.explain.parse import Frame

# Folders whose files are installed code, never the user's.
INSTALLED = ("site-packages", "dist-packages")
# Frameworks' source trees, for a checkout installed in development mode.
FRAMEWORK_TREES = (("jax", "_src"), ("tensorflow", "python"), ("keras", "src"), ("flax", "core"))


@dataclass(frozen=True)
class Skipped:
    frame: Frame
    why: str  # "not a file", "installed code", "not found here", ...


def where_is(frame: Frame, base: Path) -> Path | str:
    """The readable file of a user frame, or why the frame is not one."""
    text = frame.path
    if text.startswith("<") or not text:
        return "not a file"
    parts = Path(text).parts
    if any(part in INSTALLED for part in parts) or _in_framework(parts):
        return "installed code"
    path = Path(text) if os.path.isabs(text) else base / text
    if not path.is_file():
        return "not found here"
    if _in_python(path):
        return "Python's own library"
    if path.suffix != ".py":
        return "not a Python file"
    return path


def _in_framework(parts: tuple[str, ...]) -> bool:
    return any(parts[i : i + 2] == tree for tree in FRAMEWORK_TREES for i in range(len(parts)))


def _in_python(path: Path) -> bool:
    stdlib = sysconfig.get_paths().get("stdlib")
    return bool(stdlib) and path.resolve().is_relative_to(Path(stdlib).resolve())


def statement_lines(source: str, line: int) -> tuple[int, int]:
    """The lines of the innermost statement holding `line` (of a compound statement, its
    header); `(line, line)` when the text does not parse or no statement holds it."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return line, line
    best = (line, line)
    best_size = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.end_lineno is None:
            continue
        first, last = node.lineno, node.end_lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(first, body[0].lineno - 1)  # the header only
        if first <= line <= last and (best_size is None or last - first < best_size):
            best, best_size = (first, last), last - first
    return best
