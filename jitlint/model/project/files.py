"""The runner's side of the project pass: which file of the run a dotted name is, and what
each file receives from the others' outbound records (see model/jax/crossfile/records.py).

A name may reach its function through re-exports: `from pkg import loss` where
`pkg/__init__.py` does `from .model import loss`. Each file's lint lists the names it binds
once, by an import (`reexports`); resolution follows them for a few hops, never in a loop.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jitlint.model.domain import plugins
from jitlint.model.jax.crossfile import stars
from jitlint.model.jax.crossfile.class_facts import MODULE_FACT, MODULE_FORWARD, MODULE_KEY
from jitlint.model.jax.crossfile.records import (
    DECORATED,
    RETURNED,
    CallRecord,
    EntryRecord,
    Inbound,
    InboundEntry,
    Outbound,
    Received,
)
from jitlint.model.jax.crossfile.returned import VALUE_FACT, names_a_pair, respell
from jitlint.model.jax.crossfile.returns import IMPORT_KIND
from jitlint.model.project.reads import NotedLookups, changed_paths
from jitlint.model.tf_records import (
    BASE,
    KERAS_BASE_ONLY,
    KERAS_BASES_FACT,
    KERAS_CLASS_FACT,
    TfInbound,
    TfRecord,
)

# `pkg.loss` -> `pkg/api.py` -> `pkg/model.py` is two hops; past this a chain is dropped.
MAX_HOPS = 3


@dataclass
class ProjectFiles:
    """The run's files by absolute path, and by the dotted module names they can be
    imported as from the package roots (the parent of the top-most directory with an
    `__init__.py`; a script's own directory; the config root and `root/src`)."""

    paths: dict[str, str]  # absolute path -> display path
    modules: dict[str, str | None] = field(default_factory=dict)  # dotted -> path (None: two)

    @classmethod
    def build(cls, files: Iterable[tuple[str, str]], config_root: str | None) -> ProjectFiles:
        paths = {os.path.abspath(path): display for path, display in files}
        project = cls(paths)
        package_dirs: dict[str, bool] = {}

        def is_package(directory: str) -> bool:
            known = package_dirs.get(directory)
            if known is None:
                known = package_dirs[directory] = os.path.isfile(
                    os.path.join(directory, "__init__.py")
                )
            return known

        roots: set[str] = set()
        if config_root is not None:
            roots |= {os.path.abspath(config_root), os.path.join(config_root, "src")}
        # Top-most package directories whose folder name cannot be imported (`seed_rl-main`
        # from a GitHub archive, `owner+seed_rl`): the project imports them by another name.
        unnamed: set[str] = set()
        for path in paths:
            directory = os.path.dirname(path)
            while is_package(directory) and os.path.dirname(directory) != directory:
                top, directory = directory, os.path.dirname(directory)
                if not is_package(directory) and not os.path.basename(top).isidentifier():
                    unnamed.add(top)
            roots.add(directory)

        def claim(dotted: str, path: str) -> None:
            if project.modules.get(dotted, path) != path:
                project.modules[dotted] = None  # two files claim the name: ambiguous
            else:
                project.modules[dotted] = path

        for path in paths:
            for root in roots:
                dotted = _dotted(path, root)
                if dotted is not None:
                    claim(dotted, path)
        for top in sorted(unnamed):
            for head in _package_names(os.path.basename(top)):
                for path in paths:
                    inner = _dotted(path, top) if path.startswith(top + os.sep) else None
                    if inner is None and path == os.path.join(top, "__init__.py"):
                        claim(head, path)
                    elif inner is not None:
                        claim(f"{head}.{inner}", path)
        return project

    def resolve(self, caller_path: str, target: str) -> tuple[str, str] | None:
        """(callee's absolute path, function name) for a recorded call, or None. The name
        may be `Class.method` (`.model.Net.apply`: module `.model`, name `Net.apply`)."""
        found = self._resolve(caller_path, target, 1)
        if found is None and target.lstrip(".").count(".") >= 1:
            found = self._resolve(caller_path, target, 2)
        return found

    def _resolve(self, caller_path: str, target: str, name_parts: int) -> tuple[str, str] | None:
        dots = len(target) - len(target.lstrip("."))
        parts = target[dots:].split(".")
        if len(parts) < name_parts:
            return None
        module, function = parts[:-name_parts], ".".join(parts[-name_parts:])
        if dots:
            base = os.path.dirname(os.path.abspath(caller_path))
            for _ in range(dots - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *module)
            candidates = [os.path.join(stem, "__init__.py")]
            if module:
                candidates.insert(0, stem + ".py")
            found = next((c for c in candidates if c in self.paths), None)
        else:
            found = self.modules.get(".".join(module)) if module else None
        if found is None or found == os.path.abspath(caller_path):
            return None
        return found, function


def _package_names(folder: str) -> list[str]:
    """The names a package folder that is no identifier may be imported as: the identifier
    words of its name (`seed_rl` for `seed_rl-main` or `google-research+seed_rl`)."""
    return [word for word in re.split(r"[^\w]+", folder) if word.isidentifier()]


def _dotted(path: str, root: str) -> str | None:
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        return None
    parts = relative[: -len(".py")].split(os.sep) if relative.endswith(".py") else None
    if not parts:
        return None
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def locate(
    project: ProjectFiles,
    caller_path: str,
    target: str,
    defs: Mapping[str, frozenset[str]],
    reexports: Mapping[str, Mapping[str, str]],
    linted: Container[str] | None = None,
) -> tuple[str, str] | None:
    """(file, top-level def name) that `target`, as `caller_path` spells it, names, following
    re-exports; None when it is no def of the run, or the chain is too long or loops. With
    `linted` (the files whose defs are known), the first file of the chain not among them
    is where it ends: that file's lint keeps what it defines (`accepts`)."""
    seen: set[tuple[str, str]] = set()
    for _ in range(MAX_HOPS + 1):
        resolved = project.resolve(caller_path, target)
        if resolved is None or resolved in seen:
            return None
        path, name = resolved
        if linted is not None and path not in linted:
            return resolved
        if _defines(name, defs.get(path, frozenset())):
            return resolved
        head, dot, rest = name.partition(".")  # `Net.apply` through a re-export of `Net`
        following = reexports.get(path, {}).get(head)
        if following is None:
            return None
        seen.add(resolved)
        caller_path, target = path, following + dot + rest
    return None


def inbound_for(
    project: ProjectFiles,
    outbound: Mapping[str, Sequence[Outbound]],
    defs: Mapping[str, frozenset[str]],
    reexports: Mapping[str, Mapping[str, str]] | None = None,
    text: Callable[[str], bytes] | None = None,
    memo: dict[str, Any] | None = None,
) -> dict[str, tuple[Received, ...]]:
    """Each callee file's inbound calls and entries, sorted, from every file's outbound
    records (by absolute path); those naming no top-level def of the run are dropped.
    `text(path)`, where given, is a file's source: returned values go only to files whose
    text calls the name. `memo`, kept by the caller between calls, keeps what each file's
    records gave while its records and the defs, re-exports and exports of every path their
    resolution looked up are the same (the project pass asks after each wave of a round,
    and a relint changes a few files' records)."""
    found: dict[str, set[Received]] = {}
    if memo is None:
        memo = {}
    reexports = reexports or {}
    exports = tf_exports(outbound, memo.setdefault(_EXPORTS, {}))
    state = (dict(defs), dict(reexports), exports)
    before = memo.get(_STATE)
    # The paths whose entries changed since the last call, per table; None: no call before.
    changes = None
    if before is not None:
        changes = [changed_paths(old, new) for old, new in zip(before, state, strict=True)]
    changed = set().union(*changes) if changes is not None else None
    memo[_STATE] = state
    resolved: dict[str, Any] = memo.setdefault(_RESOLVED, {})
    for caller_path, records in outbound.items():
        kept = resolved.get(caller_path)
        if (
            kept is not None
            and changed is not None
            and (kept[0] is records or kept[0] == records)
            and changed.isdisjoint(kept[2])
        ):
            sent = kept[1]
        else:
            seen: set[str] = set()
            noted_defs = NotedLookups(defs, seen)
            noted_reexports = NotedLookups(reexports, seen)
            noted_exports = NotedLookups(exports, seen)
            sent = [
                item
                for record in records
                for item in received_from(
                    project, caller_path, record, noted_defs, noted_reexports, noted_exports
                )
            ]
            resolved[caller_path] = (records, sent, seen)
        for path, received in sent:
            found.setdefault(path, set()).add(received)
    for stale in resolved.keys() - outbound.keys():
        # Checked against no change since: resolved again if its file comes back.
        del resolved[stale]
    # Returned values read every file's re-exports and the exported values, not paths.
    exporters = _value_exporters(exports)
    kept = memo.get(_VALUES)
    if kept is None or changes is None or changes[1] or kept[0] != exporters or kept[1] is not text:
        kept = memo[_VALUES] = (exporters, text, _value_facts(project, exporters, reexports, text))
    for path, received in kept[2]:
        found.setdefault(path, set()).add(received)
    # A file's records, sorted, are kept while they are the same.
    ordered: dict[str, tuple[set[Received], tuple[Received, ...]]] = memo.setdefault(_SORTED, {})
    out = {}
    for path, calls in found.items():
        was = ordered.get(path)
        if was is None or was[0] != calls:
            was = ordered[path] = (calls, tuple(sorted(calls, key=rank)))
        out[path] = was[1]
    return out


# `inbound_for`'s memo: the last call's by-path tables, each file's exports as its records
# gave them, what each file's records resolved to (with the paths resolution looked up),
# the returned values sent, and each receiving file's records in order.
_STATE, _EXPORTS, _RESOLVED, _VALUES, _SORTED = "state", "exports", "resolved", "values", "sorted"


def received_from(
    project: ProjectFiles,
    caller_path: str,
    record: Outbound,
    defs: Mapping[str, frozenset[str]],
    reexports: Mapping[str, Mapping[str, str]],
    exports: Mapping[str, Mapping[str, str]],
    linted: Container[str] | None = None,
) -> list[tuple[str, Received]]:
    """The (file, what it receives) one outbound record of `caller_path` makes. With
    `linted` (engine/project.py lints importing files first), a chain ends at the first
    file not linted yet, and facts flowing to the importer (`import`) are left out."""
    display = project.paths.get(caller_path, caller_path)
    if isinstance(record, TfRecord):
        if linted is not None and record.kind in ("import", IMPORT_KIND):
            return []
        return _tf_received(project, caller_path, display, record, exports, reexports, linted)
    resolved = locate(project, caller_path, record.target, defs, reexports, linted)
    if resolved is None:
        return []
    callee, function = resolved
    python_call = not isinstance(record, EntryRecord) and record.level == 0
    known = linted is None or callee in linted
    values = _respelled_values(project, caller_path, callee, record)
    if known and python_call and not values and function + DECORATED not in defs.get(callee, ()):
        return []  # a call made in Python of a function no decorator may have jitted
    taken_only = bool(values) and all(index == RETURNED for index, _ in values)
    if taken_only and not names_a_pair(exports.get(callee, {}).get(function, "")):
        return []  # it took back no pair: nothing the callee reads
    site = f"{display}:{record.place}"
    if isinstance(record, EntryRecord):
        entry = InboundEntry(
            function, site, record.transform, record.applied, record.level,
            record.options, record.bound, record.bound_names, record.calls,
        )  # fmt: skip
        return [(callee, entry)]
    call = Inbound(
        function,
        site,
        record.caller,
        record.how,
        record.level,
        record.args,
        record.star,
        record.staged,
        values,
    )
    return [(callee, call)]


def _respelled_values(
    project: ProjectFiles, caller_path: str, callee: str, record: Outbound
) -> tuple[tuple[int, str], ...]:
    """A call's arguments that travel as value facts (a pair of functions), with the
    functions they name spelled as the callee's file would import them; those that cannot
    be so spelled are left out. The mark that the call took the callee's returned pair
    (records.RETURNED) passes as it is."""
    if not isinstance(record, CallRecord) or not record.values:
        return ()
    out = []
    for index, fact in record.values:
        if index == RETURNED:
            out.append((index, fact))  # the callee's own value: no fact to spell
            continue
        respelled = respell(fact, project.resolve, caller_path, callee)
        if respelled is not None:
            out.append((index, respelled))
    return tuple(out)


def answered(
    project: ProjectFiles,
    caller_path: str,
    question: str,
    defs: Mapping[str, frozenset[str]],
    reexports: Mapping[str, Mapping[str, str]],
    exports: Mapping[str, Mapping[str, str]],
) -> list[tuple[str, Received]]:
    """What `caller_path` would receive for a "jax-import" record of `question` (a name as it
    spells it), from the files whose `exports` are known."""
    record = TfRecord(question, 0, IMPORT_KIND)
    return received_from(project, caller_path, record, defs, reexports, exports)


def _defines(name: str, defs: frozenset[str]) -> bool:
    if name in defs:
        return True
    owner, _, method = name.rpartition(".")
    # `Net.apply` of a flax Module: its file runs `Net.__call__`.
    return method in plugins.apply_methods() and owner in defs


def accepts(received: Received, defs: frozenset[str], reexports: Mapping[str, str]) -> bool:
    """Whether the file with top-level `defs` and `reexports` keeps `received`: what
    `inbound_for` gives it, given what a chain that ended there before its lint (`linted`)
    gives it."""
    if isinstance(received, TfInbound):
        # A name the file only re-exports goes on to the file it comes from.
        return received.kind == "fact" or received.function.partition(".")[0] not in reexports
    if not _defines(received.function, defs):
        return False
    if isinstance(received, Inbound) and received.level == 0:
        return bool(received.values) or received.function + DECORATED in defs
    return True


def rank(received: Received) -> tuple[Any, ...]:
    return received.rank()


# ---- TensorFlow records (model/tf_records.py) -----------------------------------------------
def tf_exports(
    outbound: Mapping[str, Sequence[Outbound]], memo: dict[str, Any] | None = None
) -> dict[str, dict[str, str]]:
    """Each file's exported facts: its own dotted name -> fact. `memo` (path -> its records
    and their facts) keeps a file's facts, the same object, while its records are."""
    found: dict[str, dict[str, str]] = {}
    for path, records in outbound.items():
        kept = memo.get(path) if memo is not None else None
        if kept is not None and kept[0] is records:
            facts = kept[1]
        else:
            facts = {}
            for record in records:
                if isinstance(record, TfRecord) and record.kind == "export":
                    known = facts.get(record.target)
                    # A class's other fact (JAX's pytree fields) wins over its Keras fact:
                    # one name holds one fact, and a class is rarely both.
                    if known is None or known.startswith(KERAS_CLASS_FACT):
                        facts[record.target] = record.status
            if memo is not None:
                memo[path] = (records, facts)
        if facts:
            found[path] = facts
    return found


def _tf_resolve(
    project: ProjectFiles,
    caller_path: str,
    target: str,
    reexports: Mapping[str, Mapping[str, str]],
    linted: Container[str] | None = None,
) -> tuple[str, str] | None:
    """(file, dotted name in it) for a name as `caller_path` spells it; "" for the module
    itself. Names that only re-export (`from .layers import Dense` in `__init__.py`) are
    followed a few hops."""
    seen: set[tuple[str, str]] = set()
    for _ in range(MAX_HOPS + 1):
        module = module_file(project, caller_path, target)
        if module is not None:
            return module, ""
        dots = len(target) - len(target.lstrip("."))
        parts = target[dots:].split(".")
        resolved = None
        for cut in range(len(parts) - 1, 0, -1):  # `.consts.Const.FLOAT`: module `.consts`
            head = target[:dots] + ".".join(parts[:cut])
            module = module_file(project, caller_path, head)
            if module is not None:
                resolved = module, ".".join(parts[cut:])
                break
        if resolved is None:
            resolved = project.resolve(caller_path, target)
        if resolved is None or resolved in seen:
            return None
        path, name = resolved
        head, _, rest = name.partition(".")
        following = reexports.get(path, {}).get(head)
        if following is None or (linted is not None and path not in linted):
            return resolved
        seen.add(resolved)
        caller_path, target = path, following + ("." + rest if rest else "")
    return None


def _value_exporters(exports: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """The files that export returned values (jax/crossfile/returned.py): path -> name ->
    fact."""
    found = {
        path: {key: fact for key, fact in facts.items() if fact.startswith(VALUE_FACT)}
        for path, facts in exports.items()
    }
    return {path: facts for path, facts in found.items() if facts}


def _value_facts(
    project: ProjectFiles,
    exporters: Mapping[str, Mapping[str, str]],
    reexports: Mapping[str, Mapping[str, str]],
    text: Callable[[str], bytes] | None = None,
) -> list[tuple[str, Received]]:
    """What functions return (`exporters`: `_value_exporters`), for each file that imports
    them: every name a file binds by an import reaches the values its module exports under
    that name, if its text calls that name (`make_step(`, `.to_reference(`): a fact a file
    does not use would cost it another lint."""
    if not exporters:
        return []
    # A cheap test before resolving: the import's last name is a fact's head, or a module.
    heads = {key.partition(".")[0] for facts in exporters.values() for key in facts}
    heads |= {_module_leaf(path) for path in exporters}
    out: list[tuple[str, Received]] = []
    for importer, names in reexports.items():
        for target in names.values():
            if target.rpartition(".")[2] not in heads:
                continue
            resolved = _tf_resolve(project, importer, target, reexports)
            if resolved is None or resolved[0] not in exporters:
                continue
            callee, name = resolved
            for key, fact in exporters[callee].items():
                if name and key != name and not key.startswith(name + "."):
                    continue
                if text is not None and not _calls(text(importer), key.rpartition(".")[2]):
                    continue
                spelled = target + ("." + key if not name else key[len(name) :])
                respelled = respell(fact, project.resolve, callee, importer)
                if respelled is not None:
                    site = project.paths.get(callee, callee)
                    out.append((importer, TfInbound(spelled, site, "fact", respelled)))
    if text is None:
        return out
    # An instance's list fields matter only where they may reach a static argument: one of
    # the file's own (`static_argnums`), or of a jitted function another file returns. Its
    # scalar fields (`num_graphs: int`) wherever they are read: an `is None` test there or
    # in a function of another file they are passed to.
    static = {i for i, r in out if '"jit"' in r.status} | {
        i for i, _ in out if b"static_arg" in text(i)
    }
    return [(i, r) for i, r in out if i in static or not _instance_only(r.status)]


def _instance_only(fact: str) -> bool:
    return (
        '"object"' in fact
        and '"jit"' not in fact
        and '"partial"' not in fact
        and '"scalar"' not in fact
    )


def _module_leaf(path: str) -> str:
    """The last name of the module a file is: `model` for `pkg/model.py` and `pkg/model/`."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem


def _calls(source: bytes, name: str) -> bool:
    return re.search(rb"\b" + re.escape(name.encode()) + rb"\s*\(", source) is not None


def module_file(project: ProjectFiles, caller_path: str, dotted: str) -> str | None:
    """The file of the run that is the module `dotted` (as `caller_path` spells it)."""
    # `.` (`from . import x`) is the caller's package: its `__init__.py`.
    found = project._resolve(caller_path, dotted + ("_" if dotted.endswith(".") else "._"), 1)
    return found[0] if found is not None else None


# What `_first_base_fact` follows: a class's bases to the first Keras class of the run, or
# (equinox and the other module frameworks) to the first base whose module names its framework.
_KERAS_BASES = (KERAS_BASES_FACT, KERAS_CLASS_FACT, "")
_MODULE_BASES = (MODULE_FORWARD, MODULE_FACT, MODULE_KEY)


def _first_base_fact(
    project: ProjectFiles,
    path: str,
    fact: str,
    exports: Mapping[str, Mapping[str, str]],
    reexports: Mapping[str, Mapping[str, str]],
    kinds: tuple[str, str, str],
    *,
    deep: bool,
) -> str | None:
    """Follow the bases a forwarding fact names (`kinds`: the forward prefix, the known
    fact's prefix, the export key's suffix) to the first one whose module exports a known
    fact, up to `MAX_HOPS` bases of bases; `deep` takes the newest pending base first."""
    forward, known, key = kinds
    pending = [(path, fact, 0)]
    seen: set[tuple[str, str]] = set()
    while pending:
        where, bases, depth = pending.pop() if deep else pending.pop(0)
        for base in bases[len(forward) :].split(","):
            resolved = _tf_resolve(project, where, base, reexports)
            if resolved is None or resolved in seen or not resolved[1]:
                continue
            seen.add(resolved)
            found = exports.get(resolved[0], {}).get(resolved[1] + key)
            if found is None:
                continue
            if found.startswith(forward):
                if depth < MAX_HOPS:
                    pending.append((resolved[0], found, depth + 1))
            elif found.startswith(known):
                return found
    return None


def _tf_received(
    project: ProjectFiles,
    caller_path: str,
    display: str,
    record: TfRecord,
    exports: Mapping[str, Mapping[str, str]],
    reexports: Mapping[str, Mapping[str, str]],
    linted: Container[str] | None = None,
) -> list[tuple[str, Received]]:
    if record.kind == "export":
        return []
    resolved = _tf_resolve(project, caller_path, record.target, reexports, linted)
    if resolved is None:
        return []
    callee, name = resolved
    site = f"{display}:{record.place}" if record.place else display
    if record.kind in ("import", IMPORT_KIND):
        facts = exports.get(callee, {})
        out: list[tuple[str, Received]] = []
        for key, fact in facts.items():
            # Each model reads its own facts: JAX's carry a "jax:" prefix
            # (jax/crossfile/returns.py).
            if fact.startswith("jax:") != (record.kind == IMPORT_KIND):
                continue
            if fact.startswith(VALUE_FACT):
                continue  # sent to the importing files that call them (`_value_facts`)
            keras_class = fact.startswith(KERAS_CLASS_FACT)
            if fact.startswith(KERAS_BASES_FACT):
                if record.status not in (BASE, KERAS_BASE_ONLY):
                    continue
                found = _first_base_fact(
                    project, callee, fact, exports, reexports, _KERAS_BASES, deep=True
                )
                if found is None:
                    continue
                fact = found
            if fact.startswith(MODULE_FORWARD):
                found = _first_base_fact(
                    project, callee, fact, exports, reexports, _MODULE_BASES, deep=False
                )
                if found is None:
                    continue
                fact = found
            if keras_class and record.status not in (BASE, KERAS_BASE_ONLY):
                continue  # a Keras class matters to the modules that subclass it
            if not keras_class and record.status == KERAS_BASE_ONLY:
                continue
            if not name or key == name or key.startswith(name + "."):
                spelled = record.target + ("." + key if not name else key[len(name) :])
                out.append((caller_path, TfInbound(spelled, site, "fact", fact)))
        alias = None
        if record.kind == IMPORT_KIND and not out:

            def follow(path: str, module: str) -> tuple[str, Mapping[str, str]] | None:
                found = module_file(project, path, module)
                return (found, exports.get(found, {})) if found is not None else None

            alias = stars.answer(callee, facts, name, follow)
        if alias is not None:  # a name of a module that re-exports another one whole
            out.append((caller_path, TfInbound(record.target, site, "fact", alias)))
        return out
    if not name or "." in name:
        return []
    received = TfInbound(
        name, site, record.kind, record.status, record.xla, record.auto_xla, record.autograph,
        record.origin, record.per_element, record.grid,
    )  # fmt: skip
    return [(callee, received)]
