"""The project pass: lint the files of a run so that each knows the calls traced code in the
other files makes to it.

Calls flow from importing files to the modules they import, so the importing files are
linted first, in waves: a file's wave comes after those of the files that import it, and
what the earlier waves sent it is given to its lint (engine/imports.py finds the imports
from the text). What that order cannot give (import cycles, facts a module sends to its
importers, imports the text search misses) is given by linting the files that receive
something new again, until none does (bounded). Facts a module sends its importers are
answers to their questions, which their lints ask; for the commonest, a class's framework, the
first round guesses the questions from the text and lints the base's module first
(engine/class_bases.py), so a subclass mostly has its answer at its first lint.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from jitlint.engine.class_bases import base_modules, framework_questions, reversed_for_bases
from jitlint.engine.imports import import_map, import_waves, read_source
from jitlint.engine.linter import FileResult, may_change
from jitlint.engine.orphans import backup_copies
from jitlint.model.jax.crossfile.records import Outbound, Received
from jitlint.model.project.files import (
    ProjectFiles,
    accepts,
    answered,
    inbound_for,
    rank,
    received_from,
    tf_exports,
)
from jitlint.model.tf_records import TfInbound

# A helper calling a helper in a third module needs a round per step; past this the
# remaining calls are dropped (UNKNOWN), and a cycle whose calls keep changing ends.
MAX_ROUNDS = 5


def follow_imports(
    tasks: list,  # list[Task]; not imported: runner imports this module
    lint: Callable[[list], list[FileResult]],
    config_root: str | None,
) -> tuple[list[FileResult], dict[str, tuple[Received, ...]]]:
    """The results of `tasks`, in order, each file linted with the calls traced code
    elsewhere in the run makes to it; and those calls, by display path (files that
    receive none are left out)."""
    members = [
        (os.path.abspath(task.path), task, index)
        for index, task in enumerate(tasks)
        if task.path is not None and task.inbound is not None
    ]
    if len(members) < 2:
        return lint(tasks), {}
    project = ProjectFiles.build(((path, task.display) for path, task, _ in members), config_root)
    results: list[FileResult | None] = [None] * len(tasks)
    sources = {path: getattr(task, "source", None) for path, task, _ in members}
    # Each file's text, read once: for the imports, the backup copies and the few files
    # that returned values may go to (`_value_facts`).
    texts: dict[str, bytes] = {}

    def text(path: str) -> bytes:
        found = texts.get(path)
        if found is None:
            found = texts[path] = read_source(path, sources.get(path))
        return found

    imports = import_map(project, [path for path, _, _ in members], text)
    copies = backup_copies(project, imports, text)
    given, waves = _first_round(tasks, members, project, lint, results, imports, copies, text)
    done: list[FileResult] = results  # type: ignore[assignment]

    # What each file's records gave, while nothing they resolve against changed: the
    # inbound records are asked for after each wave that linted files.
    memo: dict[str, Any] = {}

    def current() -> dict[str, tuple[Received, ...]]:
        found = inbound_for(
            project,
            {path: done[index].outbound for path, _, index in members},
            {path: done[index].defs for path, _, index in members},
            {path: done[index].reexports for path, _, index in members},
            text,
            memo,
        )
        return _with_copies(found, copies)

    by_path = {path: (task, index) for path, task, index in members}
    # What each file's current result was linted with: a relint whose records differ from
    # these only where that lint never read them is skipped (linter.py `may_change`).
    linted_with = dict(given)
    inbound = None
    for _ in range(MAX_ROUNDS):
        # Each round goes through the files in the first round's waves, importing files
        # first, and sees what the files linted before it in the round sent: a subclass
        # that learnt its base is a Keras class sends its graph calls to the modules it
        # imports in the same round, not in the next (a round per step of the chain).
        relinted = False
        for wave in waves:
            if inbound is None:
                inbound = current()
            # Sorted by path, whatever order the files came in: -j1 and -j2 agree.
            changed = [path for path in wave if inbound.get(path, ()) != given[path]]
            for path in changed:
                if not may_change(done[by_path[path][1]], linted_with[path], inbound.get(path, ())):
                    given[path] = inbound.get(path, ())
            changed = [path for path in changed if inbound.get(path, ()) != given[path]]
            if not changed:
                continue
            batch = [
                dataclasses.replace(by_path[path][0], inbound=inbound.get(path, ()))
                for path in changed
            ]
            for path, result in zip(changed, lint(batch), strict=True):
                done[by_path[path][1]] = result
                given[path] = linted_with[path] = inbound.get(path, ())
            inbound = None
            relinted = True
        if not relinted:
            break
    return done, {task.display: given[path] for path, task, _ in members if given[path]}


def _with_copies(
    found: dict[str, tuple[Received, ...]], copies: dict[str, tuple[TfInbound, ...]]
) -> dict[str, tuple[Received, ...]]:
    """`inbound_for`'s answer with the backup copies' records (engine/orphans.py) added."""
    if not copies:
        return found
    out = dict(found)
    for path, records in copies.items():
        out[path] = tuple(sorted({*found.get(path, ()), *records}, key=rank))
    return out


def _first_round(
    tasks: list,
    members: list[tuple[str, object, int]],
    project: ProjectFiles,
    lint: Callable[[list], list[FileResult]],
    results: list[FileResult | None],
    imports: dict[str, set[str]],
    copies: dict[str, tuple[TfInbound, ...]],
    text: Callable[[str], bytes],
) -> tuple[dict[str, tuple[Received, ...]], list[list[str]]]:
    """Lint every task once, importing files first; fills `results` and returns what each
    member's lint kept of what it was given (`accepts`), and the waves it linted them in.
    `imports`: which member imports which; `copies`: the backup copies' records."""
    by_path = {path: (task, index) for path, task, index in members}
    in_project = {index for _, _, index in members}
    others = [index for index in range(len(tasks)) if index not in in_project]
    if others:
        for index, result in zip(others, lint([tasks[i] for i in others]), strict=True):
            results[index] = result
    linted: set[str] = set()
    defs: dict[str, frozenset[str]] = {}
    reexports: dict[str, dict[str, str]] = {}
    # What reached a file not linted yet: (caller path, record), and what it receives.
    parked: dict[str, list[tuple[str, Outbound]]] = {}
    received: dict[str, set[Received]] = {path: set(found) for path, found in copies.items()}
    given: dict[str, tuple[Received, ...]] = {}

    def send(caller: str, record: Outbound) -> None:
        for path, item in received_from(project, caller, record, defs, reexports, {}, linted):
            if path not in linted and path in by_path:
                parked.setdefault(path, []).append((caller, record))
                received.setdefault(path, set()).add(item)

    # The framework questions each subclass will likely ask, its bases' modules first, and
    # their answers given at its first lint (engine/class_bases.py).
    questions = {path: framework_questions(text(path)) for path, _, _ in members}
    bases = {
        path: base_modules(project, path, found, text) for path, found in questions.items() if found
    }
    order = reversed_for_bases(imports, bases)
    exports: dict[str, dict[str, str]] = {}

    def answers(path: str) -> set[Received]:
        if not bases.get(path) or not bases[path] & linted:
            return set()
        return {
            item
            for question in questions[path]
            for _, item in answered(project, path, question, defs, reexports, exports)
        }

    waves = import_waves(project, [path for path, _, _ in members], {}, order)
    for wave in waves:
        batch = [
            dataclasses.replace(
                by_path[path][0],
                inbound=tuple(sorted(received.get(path, set()) | answers(path), key=rank)),
            )
            for path in wave
        ]
        for path, task, result in zip(wave, batch, lint(batch), strict=True):
            results[by_path[path][1]] = result
            linted.add(path)
            defs[path] = result.defs
            reexports[path] = result.reexports
            exports.update(tf_exports({path: result.outbound}))
            given[path] = tuple(
                item for item in task.inbound if accepts(item, result.defs, result.reexports)
            )
        for path in wave:
            # Records that stopped here go on through its re-exports to the files they name.
            for caller, record in parked.pop(path, ()):
                send(caller, record)
            for record in results[by_path[path][1]].outbound:  # type: ignore[union-attr]
                send(path, record)
    return given, waves
