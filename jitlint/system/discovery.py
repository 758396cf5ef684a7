"""Which files to lint: walk the given paths, honouring exclude patterns and .gitignore files.

Each directory is walked with the exclusion of its own configuration (`Exclusion`, from the
nearest config file): gitignore-syntax patterns, each group matched against paths relative to
the directory it is relative to, and the .gitignore files from the config's root down. Files
named on the command line are linted unless `force-exclude` is set, as in ruff, and only when
they are Python files or notebooks (a `.txt` or other file named by mistake is reported as
skipped, not parsed as Python); directory walks take only `*.py`, `*.pyi` and `*.ipynb` and
never follow symlinked directories (so a symlink loop cannot trap the walk). A walked dangling
link is skipped (editors leave them as lock files); a `.py` link in a loop is kept, so reading
reports it (JIT001) once. Links are resolved with `os.path.realpath`, which stops at a loop
instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from jitlint.system.reading import is_symlink_loop, read_head, real_path

if TYPE_CHECKING:
    import pathspec

DEFAULT_EXCLUDE = [
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pytype", ".ruff_cache", ".jitlint_cache", ".svn", ".tox", ".venv",
    "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv",
]  # fmt: skip
SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: jitlint/notebook/


def _spec(patterns: Iterable[str]) -> pathspec.PathSpec:
    import pathspec  # ~15 ms: only runs that match patterns pay for it

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is not a valid gitignore-style pattern, or None. pathspec raises its own
    `GitWildMatchPatternError` (a ValueError) for `!` or a trailing `\\`, and `re.error`
    for a bad character range such as `[z-a]`."""
    import re

    try:
        _spec([pattern])
    except (ValueError, re.error) as exc:
        return str(exc) or type(exc).__name__
    return None


def _lenient_spec(lines: list[str]) -> pathspec.PathSpec:
    """A .gitignore's patterns; lines git would not accept either are dropped, not fatal."""
    try:
        return _spec(lines)
    except Exception:  # pathspec's own error or re.error: find the bad lines
        return _spec(line for line in lines if pattern_problem(line) is None)


def is_python_file(path: Path) -> bool:
    """A file named on the command line is linted when it has a Python suffix, or none and a
    `python` shebang (a script), as pre-commit's `types: [python]` decides."""
    if path.suffix in SUFFIXES:
        return True
    if path.suffix:
        return False
    head = read_head(path, 200)  # a FIFO or device named without a suffix is never opened
    if head is None:
        return False
    first = head.split(b"\n", 1)[0]
    return first.startswith(b"#!") and b"python" in first


@dataclass
class Exclusion:
    """How one configuration excludes files."""

    root: Path  # the config's directory, resolved: .gitignore files from here down apply
    groups: Sequence[tuple[Path, Sequence[str]]]  # patterns, each group relative to its directory
    respect_gitignore: bool = True
    force: bool = False  # also exclude files named on the command line
    _specs: list[tuple[Path, pathspec.PathSpec]] | None = field(default=None, repr=False)

    def matches(self, path: Path, is_dir: bool) -> bool:
        """Whether a pattern excludes `path` (absolute); .gitignore files are the finder's."""
        if self._specs is None:
            self._specs = [
                (Path(real_path(base)), _spec(patterns)) for base, patterns in self.groups
            ]
        for base, spec in self._specs:
            try:
                relative = path.relative_to(base).as_posix()
            except ValueError:
                continue
            if relative != "." and spec.match_file(relative + ("/" if is_dir else "")):
                return True
        return False


@dataclass
class Found:
    """The files a run lints, and the paths it was given that it does not."""

    files: list[Path]  # to lint, in a stable order
    missing: list[Path]  # named but not there
    not_python: list[Path]  # named, but not Python files: skipped


class FileFinder:
    """`exclusion_for(directory)` is the exclusion of the config nearest to the directory.
    .gitignore files apply from that config's root down, or from `gitignore_root` (the run's
    project root) when it is above: a nested project still honours its repository's."""

    def __init__(
        self, exclusion_for: Callable[[Path], Exclusion], gitignore_root: Path | None = None
    ) -> None:
        self._exclusion_for = exclusion_for
        self._gitignore_root = (
            Path(real_path(gitignore_root)) if gitignore_root is not None else None
        )
        self._gitignores: dict[Path, pathspec.PathSpec | None] = {}

    def find(self, paths: Iterable[Path]) -> Found:
        seen: set[Path] = set()
        found = Found([], [], [])
        for given in paths:
            if not given.exists() and not given.is_symlink():
                found.missing.append(given)
                continue
            if given.is_dir():
                candidates: Iterable[Path] = self._walk(given)
            elif self._exclusion(given.parent).force and self.is_excluded(given, is_dir=False):
                continue
            elif not is_python_file(given):
                found.not_python.append(given)
                continue
            else:
                candidates = [given]
            for path in candidates:
                key = Path(real_path(path))
                if key not in seen:
                    seen.add(key)
                    found.files.append(path)
        return found

    def _exclusion(self, directory: Path) -> Exclusion:
        return self._exclusion_for(directory)

    def is_excluded(self, path: Path, is_dir: bool) -> bool:
        """By the patterns and .gitignore files of the config of the directory holding it."""
        exclusion = self._exclusion(path.parent)
        absolute = Path(real_path(path))
        if exclusion.matches(absolute, is_dir):
            return True
        return exclusion.respect_gitignore and self._gitignored(absolute, is_dir, exclusion.root)

    def _walk(self, top: Path) -> Iterator[Path]:
        if Path(real_path(top)) != self._exclusion(top).root and self.is_excluded(top, is_dir=True):
            return
        for directory, dirnames, filenames in os.walk(top):
            base = Path(directory)
            dirnames[:] = sorted(d for d in dirnames if not self.is_excluded(base / d, is_dir=True))
            for name in sorted(filenames):
                path = base / name
                if not name.endswith(SUFFIXES) or self.is_excluded(path, is_dir=False):
                    continue
                if path.is_symlink() and not path.exists() and not is_symlink_loop(path):
                    continue  # a dangling link is no file to lint
                yield path

    def _gitignored(self, absolute: Path, is_dir: bool, root: Path) -> bool:
        if self._gitignore_root is not None and self._gitignore_root in root.parents:
            root = self._gitignore_root
        # Every .gitignore from the root down to the path's directory applies to it.
        for directory in reversed([absolute.parent, *absolute.parent.parents]):
            if directory != root and root not in directory.parents:
                continue
            spec = self._gitignore(directory)
            if spec is None:
                continue
            relative = absolute.relative_to(directory).as_posix() + ("/" if is_dir else "")
            if spec.match_file(relative):
                return True
        return False

    def _gitignore(self, directory: Path) -> pathspec.PathSpec | None:
        if directory not in self._gitignores:
            ignore_file = directory / ".gitignore"
            spec = None
            if ignore_file.is_file():
                try:
                    lines = ignore_file.read_text(encoding="utf-8", errors="replace")
                    spec = _lenient_spec(lines.splitlines())
                except OSError:
                    spec = None
            self._gitignores[directory] = spec
        return self._gitignores[directory]
