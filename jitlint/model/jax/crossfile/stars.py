"""Modules that re-export another module whole, for the files that import them: a backend
module holding only `from jax.numpy import *` is jax.numpy to the file that does `from . import
backend as B` and calls `B.all(mask)` in traced code.

The re-exporting file exports one fact under the key "*": the module it star-imports and the
names it binds itself (python/names.py `star_source`). A file whose traced code calls a name of
that module asks for it (returns.py's import records); the runner answers each asked name
that the module does not bind itself with an alias fact (`answer`), and the asking file
resolves the name through `Names.aliases` from then on. The facts travel as the TensorFlow
model's export/import records with a "jax:" prefix, like the return facts (returns.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jitlint.model.jax.crossfile.returns import IMPORT_KIND
from jitlint.model.tf_records import TfRecord
from jitlint.python.names import Names, star_source

STAR_KEY = "*"
STAR_FACT = "jax:star:"
ALIAS_FACT = "jax:alias:"


def exports(names: Names) -> list[TfRecord]:
    """The star fact of a module that re-exports another one whole; none otherwise."""
    found = star_source(names)
    if found is None:
        return []
    source, own = found
    return [TfRecord(STAR_KEY, 0, "export", f"{STAR_FACT}{source}|{','.join(sorted(own))}")]


def answer(facts: Mapping[str, str], name: str) -> str | None:
    """The alias fact for `name` (dotted, inside the module whose exported `facts` these
    are): the star-imported module's name for it, unless the module binds it itself."""
    fact = facts.get(STAR_KEY, "")
    if not name or not fact.startswith(STAR_FACT):
        return None
    source, _, own = fact[len(STAR_FACT) :].partition("|")
    if not source or name.partition(".")[0] in own.split(","):
        return None
    return f"{ALIAS_FACT}{source}.{name}"


def aliases(inbound: Mapping[str, Sequence[Any]]) -> dict[str, str]:
    """The names the delivered alias facts resolve, as the receiving file spells them; a name
    with two different answers is left out (not sure which)."""
    found: dict[str, set[str]] = {}
    for spelled, records in inbound.items():
        for record in records:
            status = getattr(record, "status", "")
            if status.startswith(ALIAS_FACT):
                found.setdefault(spelled, set()).add(status[len(ALIAS_FACT) :])
    return {spelled: targets.pop() for spelled, targets in found.items() if len(targets) == 1}


def still_asked(resolved: Mapping[str, str]) -> list[TfRecord]:
    """The import records that keep the aliases coming: once resolved, the names no longer
    look like project names, and the calls that asked for them ask no more."""
    return [TfRecord(spelled, 0, IMPORT_KIND) for spelled in sorted(resolved)]
