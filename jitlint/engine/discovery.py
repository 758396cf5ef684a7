"""Which files to lint: walk the given paths, honouring exclude patterns and .gitignore files.

Patterns use gitignore syntax, matched against paths relative to the project root (the config
file's directory). Files named on the command line are always linted unless `force-exclude`
is set, as in ruff; directory walks take only `*.py`, `*.pyi` and `*.ipynb` and never follow
symlinked directories (so a symlink loop cannot trap the walk). A walked dangling link is skipped
(editors leave them as lock files); a `.py` link in a loop is kept, so reading reports it (JIT001)
once. Links are resolved with `os.path.realpath`, which stops at a loop instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from jitlint.system.reading import is_symlink_loop, real_path

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


class FileFinder:
    def __init__(
        self,
        root: Path,
        exclude: list[str] | None = None,
        extend_exclude: Iterable[str] = (),
        respect_gitignore: bool = True,
        force_exclude: bool = False,
    ) -> None:
        self.root = Path(real_path(root))
        self._patterns = (DEFAULT_EXCLUDE if exclude is None else exclude) + list(extend_exclude)
        self._exclude: pathspec.PathSpec | None = None
        self.respect_gitignore = respect_gitignore
        self.force_exclude = force_exclude
        self._gitignores: dict[Path, pathspec.PathSpec | None] = {}

    def find(self, paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
        """(files to lint in a stable order, paths that do not exist)."""
        seen: set[Path] = set()
        files: list[Path] = []
        missing: list[Path] = []
        for given in paths:
            if not given.exists() and not given.is_symlink():
                missing.append(given)
                continue
            if given.is_dir():
                candidates: Iterable[Path] = self._walk(given)
            elif self.force_exclude and self.is_excluded(given, is_dir=False):
                continue
            else:
                candidates = [given]
            for path in candidates:
                key = Path(real_path(path))
                if key not in seen:
                    seen.add(key)
                    files.append(path)
        return files, missing

    def is_excluded(self, path: Path, is_dir: bool) -> bool:
        relative = self._relative(path)
        if relative is None:
            return False
        text = relative + ("/" if is_dir else "")
        if self._exclude is None:
            self._exclude = _spec(self._patterns)
        if self._exclude.match_file(text):
            return True
        return self.respect_gitignore and self._gitignored(path, is_dir)

    def _walk(self, top: Path) -> Iterator[Path]:
        if Path(real_path(top)) != self.root and self.is_excluded(top, is_dir=True):
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

    def _relative(self, path: Path) -> str | None:
        try:
            return Path(real_path(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _gitignored(self, path: Path, is_dir: bool) -> bool:
        absolute = Path(real_path(path))
        # Every .gitignore from the root down to the path's directory applies to it.
        for directory in reversed([absolute.parent, *absolute.parent.parents]):
            if directory != self.root and self.root not in directory.parents:
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
