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
    """A frame of the traceback that no file here stands for, and why."""

    frame: Frame
    why: str  # "not a file", "installed code", "not found here", ...


def where_is(frame: Frame, base: Path) -> Path | str:
    """The readable file of a user frame, or why the frame is not one."""
    text = frame.path
    if text.startswith("<") or not text:
        return "not a file"
    if Path(text).name.startswith("__autograph_generated_file"):
        return "TF's generated code"
    parts = Path(text).parts
    if any(part in INSTALLED for part in parts) or _in_framework(parts):
        return "installed code"
    path = Path(text) if os.path.isabs(text) else _under(base, parts)
    if path is None or not path.is_file():
        return "not found here"
    if _in_python(path):
        return "Python's own library"
    if path.suffix != ".py":
        return "not a Python file"
    return path


def _under(base: Path, parts: tuple[str, ...]) -> Path | None:
    """A relative path under `base`. TF's "Stack trace for op definition" cuts the folders a
    user file shares with TF's install, so leading folders are dropped until it is found (at
    least a folder and a file are kept: a bare `model.py` could be any file)."""
    for start in range(max(1, len(parts) - 1)):
        path = base.joinpath(*parts[start:])
        if path.is_file():
            return path
    return None


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


def _tree(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[int, int]:
    """A definition's decorators and header, up to its body."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, max(node.lineno, node.body[0].lineno - 1)


def function_lines(source: str, line: int, scope: str) -> tuple[int, int]:
    """For a place a message names: the def at `line` (its header for "def", the whole
    function for "body"); `(line, line)` when no def starts there."""
    tree = _tree(source)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == line:
            first, last = _header(node)
            return (first, node.end_lineno or last) if scope == "body" else (first, last)
    return line, line


def called_names(source: str, first: int, last: int) -> set[str]:
    """The names of the functions called between lines `first` and `last` (`f` of `f(...)`,
    `m` of `obj.m(...)`)."""
    tree = _tree(source)
    names: set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and first <= node.lineno <= last:
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return names


def definitions(source: str, names: set[str]) -> list[tuple[int, int]]:
    """Where `names` are defined: a def's decorators and header, or a statement that binds
    the name (`step = jax.jit(f)`) at module or class level."""
    tree = _tree(source)
    spans: list[tuple[int, int]] = []
    bodies = [tree] if tree is not None else []
    bodies += [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] if tree else []
    for owner in bodies:
        for node in owner.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names:
                spans.append(_header(node))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound = {t.id for t in targets if isinstance(t, ast.Name)}
                if bound & names:
                    spans.append((node.lineno, node.end_lineno or node.lineno))
    return spans
