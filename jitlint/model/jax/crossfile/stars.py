"""Modules that re-export another module whole, for the files that import them: a backend
module holding only `from jax.numpy import *` is jax.numpy to the file that does `from . import
backend as B` and calls `B.all(mask)` in traced code.

The re-exporting file exports one fact under the key "*": the module it star-imports, the
names it binds itself and its `__all__` (python/names.py `star_source`, `public_names`). A
file whose traced code calls a name of that module asks for it (returns.py's import records);
the runner answers each asked name that the module does not bind itself with an alias fact
(`answer`), following modules of the run that star-import in turn (`pkg/__init__.py` doing
`from .backend import *`), and the asking file resolves the name through `Names.aliases`
from then on. The facts travel as the TensorFlow
model's export/import records with a "jax:" prefix, like the return facts (returns.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jitlint.model.jax.crossfile.returns import IMPORT_KIND
from jitlint.model.tf_records import TfRecord
from jitlint.python.names import Names, public_names, star_source

STAR_KEY = "*"
STAR_FACT = "jax:star:"
ALIAS_FACT = "jax:alias:"
MAX_HOPS = 4  # star imports followed from the asked module to the one outside the run


def exports(names: Names) -> list[TfRecord]:
    """The star fact of a module that re-exports another one whole; none otherwise."""
    found = star_source(names)
    if found is None:
        return []
    source, own = found
    public = public_names(names)
    listed = "*" if public is None else ",".join(sorted(public))
    fact = f"{STAR_FACT}{source}|{','.join(sorted(own))}|{listed}"
    return [TfRecord(STAR_KEY, 0, "export", fact)]


# (file, the module as that file spells it) -> (the module's file, its exported facts), or
# None when the module is no file of the run.
Follow = Callable[[str, str], tuple[str, Mapping[str, str]] | None]


def answer(path: str, facts: Mapping[str, str], name: str, follow: Follow) -> str | None:
    """The alias fact for `name` (dotted) of the module in file `path` whose exported facts
    these are: where its star import takes the name from, followed through modules of the
    run that star-import in turn (each passing on what its `__all__` lists, or every public
    name) to a module outside the run. None for a name the module binds itself, or a chain
    that ends in the run or is too long."""
    for _ in range(MAX_HOPS):
        star = _star(facts)
        head = name.partition(".")[0]
        if star is None or not name or head in star[1]:
            return None
        found = follow(path, star[0])
        if found is None:
            return None if star[0].startswith(".") else f"{ALIAS_FACT}{star[0]}.{name}"
        path, facts = found
        source = _star(facts)
        # A module of the run that star-imports nothing holds its names itself.
        if source is None or not _passes(source[2], head):
            return None
    return None


def _star(facts: Mapping[str, str]) -> tuple[str, list[str], str] | None:
    fact = facts.get(STAR_KEY, "")
    if not fact.startswith(STAR_FACT):
        return None
    parts = fact[len(STAR_FACT) :].split("|")
    if len(parts) != 3 or not parts[0]:
        return None
    return parts[0], parts[1].split(","), parts[2]


def _passes(listed: str, name: str) -> bool:
    """Whether `from m import *` takes `name` from a module whose `__all__` is `listed`."""
    return not name.startswith("_") if listed == "*" else name in listed.split(",")


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
