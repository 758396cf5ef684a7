"""Which files of a run import which, read from their text: the order of the project
pass's first round (engine/project.py). A missed or a spurious import only costs a file
a second lint, never a result: the project pass checks what each file received."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from jitlint.model.project.files import ProjectFiles, module_file

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
        if base:
            joiner = "" if base.endswith(".") else "."
            dotted = [base, *(base + joiner + name for name in _names(names))]
        else:
            dotted = list(_names(plain))
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


def import_waves(
    project: ProjectFiles, paths: Sequence[str], sources: Mapping[str, bytes | None]
) -> list[list[str]]:
    """`paths` in waves, each file after the files that import it. Import cycles have no
    such order: a depth-first search from the files nothing imports orders them so that
    only the imports that close a cycle point backwards, and those are not waited for."""
    members = set(paths)
    imports: dict[str, list[str]] = {}
    for path in paths:
        found = imported_files(project, path, _read(path, sources.get(path))) & members
        imports[path] = sorted(found)
    imported = {target for targets in imports.values() for target in targets}
    order = _reverse_postorder(sorted(paths, key=lambda path: (path in imported, path)), imports)
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


def _reverse_postorder(starts: list[str], edges: Mapping[str, list[str]]) -> list[str]:
    seen: set[str] = set()
    finished: list[str] = []
    for start in starts:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(edges[start]))]
        while stack:
            node, pending = stack[-1]
            for target in pending:
                if target not in seen:
                    seen.add(target)
                    stack.append((target, iter(edges[target])))
                    break
            else:
                stack.pop()
                finished.append(node)
    finished.reverse()
    return finished


def _read(path: str, source: bytes | None) -> bytes:
    if source is not None:
        return source
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""  # its lint reports it
