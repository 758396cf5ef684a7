"""Which files of a run import which, read from their text: the order of the project
pass's first round (engine/project.py). A missed or a spurious import only costs a file
a second lint, never a result: the project pass checks what each file received."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence

from jitlint.model.project.files import ProjectFiles, module_file
from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file

# `from .mod import a, b` (names in parentheses may span lines) and `import a.b as c, d`,
# anywhere in the file (imports inside functions count too).
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))",
    re.M,
)


def imported_files(project: ProjectFiles, path: str, source: bytes) -> set[str]:
    """The files of the run that `source` (the file at `path`) imports, or imports names of."""
    found: set[str] = set()
    for match in _IMPORT.finditer(source):
        base, names, plain = (
            part.decode("utf-8", "replace") if part else "" for part in match.groups()
        )
        if not base:
            found.update(_files(project, path, _names(plain)))
            continue
        joiner = "" if base.endswith(".") else "."
        imported = _names(names)
        modules = _files(project, path, [base + joiner + name for name in imported])
        # `from pkg import sub` of a submodule: records name `pkg.sub.f`, which the package's
        # own file does not route (its re-exports of other names would).
        if len(modules) < len(imported) or not imported:
            modules |= _files(project, path, [base])
        found |= modules
    return found


def _files(project: ProjectFiles, path: str, dotted: list[str]) -> set[str]:
    found = set()
    for name in dotted:
        target = module_file(project, path, name)
        if target is not None and target != path:
            found.add(target)
    return found


def _names(text: str) -> list[str]:
    names = []
    for part in text.strip().strip("()").split(","):
        name = part.split(" as ")[0].strip().rstrip("\\").strip()
        if name and name != "*":
            names.append(name)
    return names


def import_map(
    project: ProjectFiles, paths: Sequence[str], text: Callable[[str], bytes]
) -> dict[str, set[str]]:
    """Per file of `paths`, the files of `paths` it imports (`text(path)`: its source)."""
    members = set(paths)
    return {path: imported_files(project, path, text(path)) & members for path in paths}


def import_waves(
    project: ProjectFiles,
    paths: Sequence[str],
    sources: Mapping[str, bytes | None],
    imports: Mapping[str, set[str]] | None = None,
) -> list[list[str]]:
    """`paths` in waves, each file after the files that import it. Import cycles have no
    such order: a greedy order (Eades, Lin and Smyth's, for few backward edges) leaves as
    few imports as it can pointing backwards, and those are not waited for. `imports`:
    `import_map`'s answer, where the caller has it."""
    if imports is None:
        imports = import_map(project, paths, lambda path: read_source(path, sources.get(path)))
    imports = {path: _not_of_own_packages(path, found) for path, found in imports.items()}
    order = _few_backward(sorted(paths), imports)
    position = {path: at for at, path in enumerate(order)}
    level = dict.fromkeys(order, 0)
    for path in order:
        for target in imports[path]:
            if position[target] > position[path]:
                level[target] = max(level[target], level[path] + 1)
    waves: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for path in sorted(paths):
        waves[level[path]].append(path)
    return waves


def _not_of_own_packages(path: str, imported: set[str]) -> set[str]:
    """`imported` less the `__init__.py` of the packages holding `path`. Python runs a
    package's `__init__` before any module in it, so such an import is a cycle whenever the
    `__init__` imports its modules; waiting for it ties whole packages into one import
    cycle (keras: `import keras` in a module under `keras/src`), whose greedy order then
    puts many importers after the files they send records to (a second lint each). An
    `__init__` mostly re-exports: what reaches it before its lint goes on once it is linted."""
    folder = os.path.dirname(path) + os.sep
    return {
        target
        for target in imported
        if not (
            os.path.basename(target) == "__init__.py"
            and folder.startswith(os.path.dirname(target) + os.sep)
        )
    }


def _few_backward(nodes: list[str], edges: Mapping[str, set[str]]) -> list[str]:
    """An order of `nodes` with few edges pointing backwards: files nothing left imports go
    first, files that import nothing left go last, and where only cycles are left, the
    file whose imports most outnumber its importers goes first."""
    out = {node: set(edges[node]) for node in nodes}
    into: dict[str, set[str]] = {node: set() for node in nodes}
    for node in nodes:
        for target in out[node]:
            into[target].add(node)
    head: list[str] = []
    tail: list[str] = []
    remaining = set(nodes)

    def remove(node: str) -> None:
        remaining.discard(node)
        for target in out.pop(node):
            into[target].discard(node)
        for source in into.pop(node):
            out[source].discard(node)

    while remaining:
        progressed = True
        while progressed:
            progressed = False
            sinks = sorted(node for node in remaining if not out[node])
            for node in sinks:
                tail.append(node)
                remove(node)
            sources = sorted(node for node in remaining if not into[node])
            for node in sources:
                head.append(node)
                remove(node)
            progressed = bool(sinks or sources)
        if remaining:
            chosen = max(sorted(remaining), key=lambda node: len(out[node]) - len(into[node]))
            head.append(chosen)
            remove(chosen)
    return head + tail[::-1]


def read_source(path: str, source: bytes | None) -> bytes:
    if source is not None:
        return source
    try:  # regular files only, as the lint reads them: a FIFO must not block the run
        return read_regular_file(path, DEFAULT_MAX_FILE_SIZE)
    except (Unreadable, TooLarge):
        return b""  # its lint reports it
