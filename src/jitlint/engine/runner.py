"""Lint many files: per-file rule sets, reading, and a process pool for `--jobs`."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlint import selection
from jitlint.config import Settings
from jitlint.diagnostics import Diagnostic
from jitlint.engine.cache import ResultCache, content_hash
from jitlint.engine.guards import DEFAULT_MAX_FILE_SIZE, size_problem
from jitlint.engine.linter import FileResult, lint_text

# Below this many files a process pool costs more (workers re-import libcst) than it saves.
_MIN_FILES_FOR_POOL = 16


@dataclass(frozen=True)
class Task:
    display: str  # the path as shown to the user
    path: str | None  # where to read it; None for stdin
    codes: frozenset[str]
    rule_options: dict[str, dict[str, Any]]
    source: bytes | None = None
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE


@dataclass
class RunResult:
    files: list[FileResult] = field(default_factory=list)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for f in self.files for d in f.diagnostics]

    @property
    def errors(self) -> list[str]:
        return [e for f in self.files for e in f.errors]


def _gitignore_spec(pattern: str) -> Any:
    import pathspec  # only projects with per-file-ignores pay for the import

    return pathspec.GitIgnoreSpec.from_lines([pattern])


class RuleSets:
    """The enabled codes for each file: the global selection minus per-file ignores."""

    def __init__(self, settings: Settings, enabled: set[str]) -> None:
        self.settings = settings
        self.enabled = enabled
        self._patterns = [
            (_gitignore_spec(pattern), codes)
            for pattern, codes in settings.per_file_ignores.items()
        ]

    def codes_for(self, path: Path) -> frozenset[str]:
        codes = self.enabled
        if self._patterns:
            try:
                relative = path.resolve().relative_to(self.settings.root).as_posix()
            except ValueError:
                relative = path.as_posix()
            for spec, ignored in self._patterns:
                if spec.match_file(relative):
                    codes = selection.without(codes, ignored)
        return frozenset(codes)


def display_path(path: Path) -> str:
    """The path as the user knows it: relative to the working directory, links not followed."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def read_task(task: Task) -> bytes | FileResult:
    """The task's bytes, or the JIT001 result for a file that cannot be read or is too big."""
    source = task.source
    if source is None:
        assert task.path is not None
        try:
            with open(task.path, "rb") as handle:
                source = handle.read()
        except OSError as exc:
            return _unreadable(task, exc)
    oversized = too_large(task, source)
    return oversized if oversized is not None else source


def run_task(task: Task) -> FileResult:
    source = read_task(task)
    if isinstance(source, FileResult):
        return source
    try:
        return lint_text(source, task.display, task.codes, task.rule_options)
    except Exception as exc:  # never let one file end the run
        result = FileResult(task.display)
        result.errors.append(f"{task.display}: internal error: {type(exc).__name__}: {exc}")
        return result


def too_large(task: Task, data: bytes) -> FileResult | None:
    """A JIT001 result for a file over the size limit (libcst needs ~800 bytes per byte)."""
    problem = size_problem(len(data), task.max_file_size)
    if problem is None:
        return None
    result = FileResult(task.display)
    if "JIT001" in task.codes:
        result.diagnostics.append(
            Diagnostic("JIT001", "parse-error", problem, task.display, 1, 1, 1, 2)
        )
    return result


def _unreadable(task: Task, exc: OSError) -> FileResult:
    result = FileResult(task.display)
    if "JIT001" in task.codes:
        reason = exc.strerror or str(exc)
        result.diagnostics.append(
            Diagnostic("JIT001", "parse-error", f"cannot read: {reason}", task.display, 1, 1, 1, 2)
        )
    return result


def process_pool(jobs: int) -> Any:
    """A process pool. Forking a process that has jax or TF loaded (a test run, a program
    embedding jitlint) can deadlock their threads, so such a process spawns its workers;
    jitlint itself never loads them and keeps the cheap fork."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    loaded = {"jax", "jaxlib", "tensorflow"} & sys.modules.keys()
    context = multiprocessing.get_context("spawn") if loaded else None
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context)


def run(
    tasks: Iterable[Task], jobs: int | None = None, cache_root: Path | None = None
) -> RunResult:
    """Lint `tasks`; with `cache_root`, reuse and store results under its `.jitlint_cache/`."""
    tasks = list(tasks)
    files: list[FileResult] = []
    cache = None
    if cache_root is not None and tasks:
        codes = frozenset().union(*(task.codes for task in tasks))
        cache = ResultCache(cache_root, codes, tasks[0].rule_options)
        tasks, files, digests = _from_cache(cache, tasks)
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(tasks) >= _MIN_FILES_FOR_POOL:
        # Imported here: multiprocessing costs a one-file (pre-commit) run ~10 ms for nothing.

        with process_pool(jobs) as pool:
            linted = list(pool.map(run_task, tasks, chunksize=max(1, len(tasks) // (jobs * 8))))
    else:
        linted = [run_task(task) for task in tasks]
    if cache is not None:
        for task, result in zip(tasks, linted, strict=True):
            # A file whose rules crashed is linted again next time, so the error shows again.
            if task.display in digests and not result.errors:
                key, digest = digests[task.display]
                cache.put(key, digest, task.codes, result.diagnostics)
        cache.save()
    files.extend(linted)
    files.sort(key=lambda f: f.path)
    return RunResult(files)


def _from_cache(
    cache: ResultCache, tasks: list[Task]
) -> tuple[list[Task], list[FileResult], dict[str, tuple[str, str]]]:
    """The tasks still to lint (with their bytes read), the cached results, and the cache
    key and content digest of each file to lint, by display path."""
    todo: list[Task] = []
    hits: list[FileResult] = []
    digests: dict[str, tuple[str, str]] = {}
    for task in tasks:
        source = task.source
        if source is None and task.path is not None:
            try:
                with open(task.path, "rb") as handle:
                    source = handle.read()
            except OSError:
                todo.append(task)  # run_task reports it
                continue
        # stdin is not cached, nor files over the size limit (a larger limit changes them).
        if source is None or task.path is None or size_problem(len(source), task.max_file_size):
            todo.append(task)
            continue
        key, digest = cache.key(task.path), content_hash(source)
        cached = cache.get(key, digest, task.codes, task.display)
        if cached is not None:
            hits.append(FileResult(task.display, cached))
            continue
        digests[task.display] = (key, digest)
        # The bytes are already read: hand them over rather than reading twice.
        todo.append(dataclasses.replace(task, source=source))
    return todo, hits, digests
