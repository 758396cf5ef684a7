"""Lint many files: per-file rule sets, reading, and a process pool for `--jobs`."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from jitlint import selection
from jitlint.config import Settings
from jitlint.engine.linter import FileResult, lint_text
from jitlint.model.jax.crossfile.records import Received
from jitlint.model.library.keras_evidence import evidence_key, forget_evidence
from jitlint.notebook import is_notebook
from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE, size_problem
from jitlint.system.budget import DEFAULT_MEMORY, DEFAULT_SECONDS, OverBudget, budget
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file, real_path
from jitlint.system.workers import Workers

if TYPE_CHECKING:
    from jitlint.diagnostics import Diagnostic
    from jitlint.engine.cache import ResultCache

# Below this many files a process pool costs more (workers re-import libcst) than it saves.
_MIN_FILES_FOR_POOL = 16


@dataclass(frozen=True)
class Task:
    """One file (or stdin) to lint, with its rules, their options and its budgets."""

    display: str  # the path as shown to the user
    path: str | None  # where to read it; None for stdin
    codes: frozenset[str]
    rule_options: dict[str, dict[str, Any]]
    source: bytes | None = None
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE
    # Per-file budgets (system/budget.py): over either, the file is a JIT001 finding.
    max_seconds: float | None = DEFAULT_SECONDS
    max_memory: int | None = DEFAULT_MEMORY
    # None: linted on its own (stdin). A tuple: part of the project pass, with the calls
    # traced code in other files of the run makes to this file (engine/project.py).
    inbound: tuple[Received, ...] | None = None
    # The file's own config's `fixable`/`unfixable` and `unsafe-fixes` (nearest config per
    # file); None: the run's.
    fixable: frozenset[str] | None = None
    unsafe_fixes: bool | None = None


class Progress(Protocol):
    """Told how many files a run will lint (more as the project pass adds rounds) and how
    many are done; the command line draws it on a terminal."""

    def planned(self, count: int) -> None: ...

    def done(self, count: int = 1) -> None: ...


@dataclass
class RunResult:
    """The results of a run's files."""

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
    """The enabled codes for each file: the selection minus per-file ignores (the config's,
    its `extend`ed configs', and `extra` ones, each relative to its own directory)."""

    def __init__(
        self,
        settings: Settings,
        enabled: set[str],
        extra: Sequence[tuple[Path, dict[str, list[str]]]] = (),
    ) -> None:
        self.settings = settings
        self.enabled = enabled
        self._patterns = [
            (Path(real_path(base)), _gitignore_spec(pattern), codes)
            for base, table in [*settings.per_file_ignore_groups(), *extra]
            for pattern, codes in table.items()
        ]

    def codes_for(self, path: Path) -> frozenset[str]:
        codes = self.enabled
        if self._patterns:
            absolute = Path(real_path(path))
            for base, spec, ignored in self._patterns:
                try:
                    relative = absolute.relative_to(base).as_posix()
                except ValueError:
                    relative = path.as_posix()
                if spec.match_file(relative):
                    codes = selection.without(codes, ignored)
        return frozenset(codes)


def display_path(path: Path) -> str:
    """The path as the user knows it: relative to the working directory, links not followed."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


# A notebook's JSON carries its outputs; its code is limited after the cells are joined.
NOTEBOOK_READ_LIMIT = 64 * 1024 * 1024


def read_task(task: Task) -> bytes | FileResult:
    """The task's bytes, or the JIT001 result for a file that cannot be read (not a regular
    file, a symlink loop, no permission) or is too big. Only regular files are opened, and
    never more than `max_file_size` bytes are read (system/reading.py)."""
    source = task.source
    notebook = is_notebook(task.path or task.display)
    limit = NOTEBOOK_READ_LIMIT if notebook else task.max_file_size
    if source is None:
        assert task.path is not None
        try:
            source = read_regular_file(task.path, limit)
        except Unreadable as exc:
            return jit001(task, str(exc))
        except TooLarge as exc:
            return jit001(task, size_problem(exc.size, limit, exc.exact) or "")
    # A notebook's outputs (images) may be large; the limit on its code is applied to the
    # joined cells (engine/notebook.py). Its read is still bounded.
    oversized = None if notebook else too_large(task, source)
    return oversized if oversized is not None else source


def run_task(task: Task) -> FileResult:
    try:
        with budget(task.max_seconds, task.max_memory), collector_paused():
            source = read_task(task)
            if isinstance(source, FileResult):
                return source
            if is_notebook(task.path or task.display):
                from jitlint.engine.notebook import lint_notebook

                return lint_notebook(
                    source, task.display, task.codes, task.rule_options,
                    inbound=task.inbound, max_file_size=task.max_file_size,
                )  # fmt: skip
            return lint_text(
                source, task.display, task.codes, task.rule_options, inbound=task.inbound
            )
    except OverBudget as exc:
        result = jit001(task, str(exc))
        result.cacheable = False
        return result
    except Exception as exc:  # never let one file end the run
        result = FileResult(task.display)
        result.errors.append(f"{task.display}: internal error: {type(exc).__name__}: {exc}")
        return result


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while one file is linted. A file's tree and analyses are
    alive until its lint ends, and the objects they allocate would make the collector scan
    them again and again: on the corpus it took ~19% of the run (143 full collections), and
    the trees are freed by reference counting anyway. The cycles a lint leaves are
    collected once it is back on."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@contextmanager
def full_passes_spaced() -> Iterator[None]:
    """The collector's full passes ten times rarer for the run. Each scans everything alive,
    and the linted files' results pile up: on the corpus 7 full passes took ~4% of the cold
    run. A file's own garbage is still collected after its lint, by the young passes."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, old * 10)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)


def too_large(task: Task, data: bytes) -> FileResult | None:
    """A JIT001 result for a file over the size limit (bench/README.md, "Memory and limits")."""
    # Read up to one byte past the limit (stdin, or a file whose size `stat` understated),
    # the data says only that the input is over it.
    limit = task.max_file_size
    problem = size_problem(len(data), limit, exact=not limit or len(data) > limit + 1)
    return jit001(task, problem) if problem is not None else None


def jit001(task: Task, message: str) -> FileResult:
    """The result of a file that is not linted: one JIT001 finding (when selected)."""
    result = FileResult(task.display)
    if "JIT001" in task.codes:
        from jitlint.diagnostics import Diagnostic

        result.diagnostics.append(
            Diagnostic("JIT001", "parse-error", message, task.display, 1, 1, 1, 2)
        )
    return result


Mapper = Callable[[Callable[[Task], FileResult], list[Task]], list[FileResult]]


@contextmanager
def _mapper(jobs: int | None, progress: Progress | None = None) -> Iterator[Mapper]:
    """`map` over a batch of tasks: in worker processes for `--jobs` when the batch is big
    enough, else in this process (system/workers.py), telling `progress` of each finished
    file. The pool is made on first use, so a run answered from the cache (or a small second
    round) never pays for it (multiprocessing alone costs a one-file run ~10 ms)."""
    with Workers(jobs, _MIN_FILES_FOR_POOL) as workers:

        def mapper(work: Callable[[Task], FileResult], tasks: list[Task]) -> list[FileResult]:
            done = []
            for result in workers.map(work, tasks):
                done.append(result)
                if progress is not None:
                    progress.done()
            return done

        yield mapper


def run(
    tasks: Iterable[Task],
    jobs: int | None = None,
    cache_root: Path | None = None,
    project_root: Path | None = None,
    progress: Progress | None = None,
    cache_dir: Path | None = None,
) -> RunResult:
    """Lint `tasks`; with `cache_root`, reuse and store results under its `.jitlint_cache/`
    (or `cache_dir`, `--cache-dir`).

    Files (not stdin) are linted as one project: calls from traced code to functions of
    other files of the run are followed (engine/project.py). `project_root` (the config
    root; default `cache_root`) is one of the roots absolute imports are resolved from."""
    tasks = [
        dataclasses.replace(task, inbound=()) if task.path is not None else task for task in tasks
    ]
    forget_evidence()  # a long-lived process (`--watch`, the editor) reads the code anew
    caches = None
    digests: dict[str, tuple[str, str]] = {}
    if cache_root is not None and tasks:
        codes = frozenset().union(*(task.codes for task in tasks))
        caches = _Caches(cache_root, codes, cache_dir)
    root = project_root or cache_root
    with _mapper(jobs, progress) as mapper, full_passes_spaced():

        def lint(batch: list[Task]) -> list[FileResult]:
            if progress is not None:
                progress.planned(len(batch))
            return _lint(batch, mapper, caches, digests, progress)

        files, _ = _project_pass(tasks, lint, str(root) if root is not None else None)
    if caches is not None:
        caches.save()
    files.sort(key=lambda f: f.path)
    return RunResult(files)


def project_inbound(
    tasks: list[Task], jobs: int | None, project_root: Path | None, cache_root: Path | None = None
) -> dict[str, tuple[Received, ...]]:
    """The calls traced code in other files of the run makes to each file (by display
    path), as `run` finds them: what `--fix` (and the editor server, with the cache) lints
    each file with."""
    tasks = [dataclasses.replace(task, inbound=()) for task in tasks if task.path is not None]
    if len(tasks) < 2:
        return {}
    caches = None
    if cache_root is not None:
        caches = _Caches(cache_root, frozenset().union(*(task.codes for task in tasks)))
    digests: dict[str, tuple[str, str]] = {}
    with _mapper(jobs) as mapper:

        def lint(batch: list[Task]) -> list[FileResult]:
            return _lint(batch, mapper, caches, digests)

        root = str(project_root) if project_root is not None else None
        inbound = _project_pass(tasks, lint, root)[1]
    if caches is not None:
        caches.save()
    return inbound


def _project_pass(
    tasks: list[Task], lint: Callable[[list[Task]], list[FileResult]], root: str | None
) -> tuple[list[FileResult], dict[str, tuple[Received, ...]]]:
    """`follow_imports` (engine/project.py), which only a run of two files or more imports:
    one file alone has no other file of the run to call it (the project pass's modules cost
    a one-file run ~4 ms)."""
    if sum(task.path is not None for task in tasks) < 2:
        return lint(tasks), {}
    from jitlint.engine.project import follow_imports

    return follow_imports(tasks, lint, root)


class _Caches:
    """One result cache per set of rule options: with a config per directory, files of one
    run may be linted with different options."""

    def __init__(self, root: Path, codes: frozenset[str], directory: Path | None = None) -> None:
        self.root = root
        self.codes = codes
        self.directory = directory
        self._by_options: dict[str, ResultCache] = {}

    def for_task(self, task: Task) -> ResultCache:
        from jitlint.engine.cache import ResultCache  # a --no-cache run imports no hashing

        key = json.dumps(task.rule_options, sort_keys=True, default=str)
        if key not in self._by_options:
            self._by_options[key] = ResultCache(
                self.root, self.codes, task.rule_options, self.directory
            )
        return self._by_options[key]

    def save(self) -> None:
        for cache in self._by_options.values():
            cache.save()


def _lint(
    tasks: list[Task],
    mapper: Mapper,
    caches: _Caches | None,
    digests: dict[str, tuple[str, str]],
    progress: Progress | None = None,
) -> list[FileResult]:
    """Results in the order of `tasks`, from the cache where it has them. `digests` keeps
    each file's cache key and content hash (by display path) from its first lint on."""
    if caches is None:
        return mapper(run_task, tasks)
    from jitlint.engine.cache import inbound_key

    results: list[FileResult | None] = []
    todo: list[tuple[int, Task, str]] = []
    for task in tasks:
        cache = caches.for_task(task)
        known = digests.get(task.display)
        if known is None:
            task = _read_for_cache(cache, task, digests)
            known = digests.get(task.display)
        hit = None
        key = inbound_key(task.inbound)
        if known is not None:
            hit = cache.get(known[0], known[1], task.codes, task.display, key)
        if hit is not None and any(
            evidence_key(root) != answer for root, answer in hit.keras_evidence.items()
        ):
            hit = None  # the project's code now says another Keras major (or none)
        if hit is None:
            todo.append((len(results), task, key))
        results.append(hit)
    if progress is not None and len(todo) < len(tasks):
        progress.done(len(tasks) - len(todo))
    linted = mapper(run_task, [task for _, task, _ in todo])
    for (index, task, key), result in zip(todo, linted, strict=True):
        results[index] = result
        # A file whose rules crashed is linted again next time, so the error shows again.
        known = digests.get(task.display)
        if known is not None and not result.errors and result.cacheable:
            caches.for_task(task).put(known[0], known[1], task.codes, result, key)
    return results  # type: ignore[return-value]


def _read_for_cache(cache: ResultCache, task: Task, digests: dict[str, tuple[str, str]]) -> Task:
    """The task with its bytes read, and its cache key and digest noted in `digests`."""
    from jitlint.engine.cache import content_hash

    source = task.source
    if source is None and task.path is not None:
        try:
            source = read_regular_file(task.path, task.max_file_size)
        except (Unreadable, TooLarge):
            return task  # run_task reports it
    # stdin is not cached, nor files over the size limit (a larger limit changes them).
    if source is None or task.path is None:
        return task
    if not is_notebook(task.path) and size_problem(len(source), task.max_file_size):
        return task
    digests[task.display] = (cache.key(task.path), content_hash(source))
    # The bytes are already read: hand them over rather than reading twice.
    return dataclasses.replace(task, source=source)
