"""The project pass: lint files again with the calls traced code in other files makes to
them, until no file receives new calls (bounded)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from jitlint.engine.linter import FileResult
from jitlint.model.project.files import ProjectFiles, inbound_for
from jitlint.model.project.records import Received

# A helper calling a helper in a third module needs a round per step; past this the
# remaining calls are dropped (UNKNOWN), and a cycle whose calls keep changing ends.
MAX_ROUNDS = 5


def follow_imports(
    tasks: list,  # list[Task]; not imported: runner imports this module
    first: list[FileResult],
    lint: Callable[[list], list[FileResult]],
    config_root: str | None,
) -> tuple[list[FileResult], dict[str, tuple[Received, ...]]]:
    """`first` (the results of `tasks`, in order) with the files that receive calls from
    traced code elsewhere in the run replaced by a lint that knows those calls; and those
    calls, by display path (files that receive none are left out)."""
    members = [
        (os.path.abspath(task.path), task, index)
        for index, task in enumerate(tasks)
        if task.path is not None and task.inbound is not None
    ]
    if len(members) < 2:
        return first, {}
    project = ProjectFiles.build(((path, task.display) for path, task, _ in members), config_root)
    results = list(first)
    given: dict[str, tuple[Received, ...]] = {path: () for path, _, _ in members}
    for _ in range(MAX_ROUNDS):
        inbound = inbound_for(
            project,
            {path: results[index].outbound for path, _, index in members},
            {path: results[index].defs for path, _, index in members},
            {path: results[index].reexports for path, _, index in members},
        )
        # Sorted by path, whatever order the files came in: -j1 and -j2 agree.
        changed = sorted(
            (member for member in members if inbound.get(member[0], ()) != given[member[0]]),
            key=lambda member: member[0],
        )
        if not changed:
            break
        batch = [
            dataclasses.replace(task, inbound=inbound.get(path, ())) for path, task, _ in changed
        ]
        for (path, _, index), result in zip(changed, lint(batch), strict=True):
            results[index] = result
            given[path] = inbound.get(path, ())
    return results, {task.display: given[path] for path, task, _ in members if given[path]}
