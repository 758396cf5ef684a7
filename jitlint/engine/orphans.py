"""Backup copies in an application's tree: modules of a run that no other file of it
imports, whose classes are defined again, under the same names, in a module the run does
import (`model/loss_bak.py` beside the `model/loss.py` the training script imports).

Keras reads a layer's or loss's `call` as graph code by contract (issue 29): a library's
classes are run by callers outside the repository, so a class used nowhere in the run is
still a graph root. A module nobody imports is how a library's public modules look too,
so that alone says nothing. What tells a leftover apart is the second fact: the project
imports another module that defines the same classes, the one it runs. Such a module is
given a "copy" record per shared name (model/tf_records.py), and its Keras classes that
nothing in it uses are no graph roots (model/tf/keras.py).

The contract stays where the module may be a library's: a module of a distribution (a
`setup.py`, `setup.cfg` or `pyproject.toml` beside its top package, or beside `src/`),
an `__init__.py`, and any run the project pass does not see whole (a single file, as
pre-commit or the editor lints it, gets no record at all).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from jitlint.model.project.files import ProjectFiles
from jitlint.model.tf_records import COPY_KIND, TfInbound

# A top-level `class Name`: the names a module defines for its importers.
_TOP_CLASS = re.compile(rb"^class[ \t]+(\w+)", re.M)
_DISTRIBUTION = ("setup.py", "setup.cfg", "pyproject.toml")


def backup_copies(
    project: ProjectFiles, imports: Mapping[str, set[str]], text: Callable[[str], bytes]
) -> dict[str, tuple[TfInbound, ...]]:
    """Per module of the run that is a backup copy (above), its "copy" records: one per
    top-level class name an imported module of the run defines too (`site`: that module)."""
    imported = set().union(*imports.values()) if imports else set()
    if not imported:
        return {}
    defined: dict[str, str] = {}  # class name -> the first imported module defining it
    for path in sorted(imported):
        for name in _TOP_CLASS.findall(text(path)):
            defined.setdefault(name.decode("ascii", "replace"), path)
    out: dict[str, tuple[TfInbound, ...]] = {}
    for path in sorted(imports):
        if path in imported or os.path.basename(path) == "__init__.py":
            continue
        names = {n.decode("ascii", "replace") for n in _TOP_CLASS.findall(text(path))}
        shared = sorted(names & defined.keys())
        if not shared or in_distribution(path):
            continue
        out[path] = tuple(
            TfInbound(name, project.paths.get(defined[name], defined[name]), COPY_KIND)
            for name in shared
        )
    return out


def in_distribution(path: str) -> bool:
    """A packaging file sits in the module's folder, in a package folder above it, beside
    its top package, or beside the `src/` folder holding it."""
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.isfile(os.path.join(directory, name)) for name in _DISTRIBUTION):
            return True
        if not os.path.isfile(os.path.join(directory, "__init__.py")):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    # `directory` holds the top package (or is the script's own folder).
    if os.path.basename(directory) == "src":
        parent = os.path.dirname(directory)
        return any(os.path.isfile(os.path.join(parent, name)) for name in _DISTRIBUTION)
    return False
