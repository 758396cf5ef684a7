"""Result cache: an unchanged file with unchanged settings is not linted again.

One JSON file per (jitlint build, selected codes, rule options) under `.jitlint_cache/` in the
project root, mapping each path to the hash of its bytes, the codes it was linted with, its
findings, and what the project pass needs from it (its outbound records, top-level defs and
re-exported names).
A hit needs the same bytes and the same codes. A file linted again with inbound calls from
other files (the project pass) has its result stored beside, keyed by a hash of those calls:
a changed caller changes the key, a changed file drops every variant. The "build" is the
version plus the size and mtime of jitlint's own modules, so an edited rule in a development
checkout does not serve stale results under an unchanged version number.

The cache is an optimisation only: a cache that cannot be read is empty, and one that cannot
be written is skipped silently.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from jitlint.diagnostics import Diagnostic, Edit, Fix
from jitlint.engine.linter import FileResult
from jitlint.model.jax.crossfile.reads import JaxReads
from jitlint.model.jax.crossfile.records import Received, record_from_json
from jitlint.model.tf_records import TfReads
from jitlint.system.reading import Unreadable, read_regular_file
from jitlint.version import __version__

CACHE_DIR = ".jitlint_cache"
_MAX_VARIANTS = 4  # results with inbound calls kept per file (a caller edited back and forth)


@lru_cache(maxsize=1)
def build_id() -> str:
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(__version__.encode(), digest_size=8)
    for module in sorted(package.rglob("*.py")):
        try:
            stat = module.stat()
        except OSError:
            continue
        digest.update(f"{module.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return f"{__version__}-{digest.hexdigest()}"


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _codes_key(codes: Iterable[str]) -> str:
    return ",".join(sorted(codes))


def inbound_key(inbound: Iterable[Received] | None) -> str:
    """ "" for a file linted on its own; else a hash of the calls and applications it was
    given (each kind has its own JSON shape, so they never collide)."""
    calls = [call.to_json() for call in inbound or ()]
    if not calls:
        return ""
    text = json.dumps(calls, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class ResultCache:
    def __init__(
        self,
        root: Path,
        codes: Iterable[str],
        rule_options: Mapping[str, Mapping[str, Any]],
        directory: Path | None = None,
    ) -> None:
        """`directory`: where the cache lives (`--cache-dir`), default `.jitlint_cache/` in
        `root`; a folder that several projects may share, so each root has its own files."""
        settings: dict[str, Any] = {"codes": _codes_key(codes), "options": rule_options}
        if directory is not None:
            settings["root"] = os.path.abspath(root)
        text = json.dumps(settings, sort_keys=True, default=str)
        name = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
        self.root = os.path.abspath(root)
        self.directory = directory if directory is not None else root / CACHE_DIR
        self.path = self.directory / build_id() / f"{name}.json"
        self.changed = False
        self.entries: dict[str, list[Any]] = self._load()

    def _load(self) -> dict[str, list[Any]]:
        """The entries of a readable cache file whose shape is right; any other entry
        (edited by hand, written by a bug, another layout) is dropped, not trusted."""
        try:  # a regular file only: a FIFO left there must not block the run
            data = json.loads(read_regular_file(str(self.path), None))
        except (Unreadable, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict):
            return {}
        entries = {key: entry for key, entry in data.items() if _valid_entry(entry)}
        self.changed = len(entries) != len(data)  # rewrite without the bad ones
        return entries

    def key(self, path: str) -> str:
        """Entries are keyed by the path from the project root, whatever the working dir."""
        return os.path.relpath(os.path.abspath(path), self.root)

    def get(
        self, key: str, digest: str, codes: Iterable[str], display: str, inbound: str = ""
    ) -> FileResult | None:
        """The cached result for these bytes and codes, linted with the inbound calls whose
        `inbound_key` is `inbound`."""
        entry = self.entries.get(key)
        if not entry or len(entry) != 9 or entry[0] != digest or entry[1] != _codes_key(codes):
            return None
        try:
            diagnostics, outbound, reads = entry[2], entry[3], entry[8]
            if not inbound and diagnostics is None:
                return None  # only linted with calls from other files so far
            if inbound:
                variant = entry[5].get(inbound)
                if variant is None:
                    return None
                diagnostics, outbound, reads = variant
            return FileResult(
                display,
                [_decode(item, display) for item in diagnostics],
                outbound=[record_from_json(item) for item in outbound],
                defs=frozenset(entry[4]),
                reexports={str(k): str(v) for k, v in entry[6].items()},
                keras_evidence={str(k): str(v) for k, v in entry[7].get(inbound, {}).items()},
                tf_reads=_reads(reads, 0, TfReads.from_json),
                jax_reads=_reads(reads, 1, JaxReads.from_json),
            )
        except (TypeError, ValueError, KeyError, AttributeError):  # another layout: a miss
            return None

    def put(
        self, key: str, digest: str, codes: Iterable[str], result: FileResult, inbound: str = ""
    ) -> None:
        diagnostics = [_encode(d) for d in result.diagnostics]
        outbound = [call.to_json() for call in result.outbound]
        # What the lint read of its records (the project pass's `may_change`), if known.
        reads = None
        if result.tf_reads is not None and result.jax_reads is not None:
            reads = [result.tf_reads.to_json(), result.jax_reads.to_json()]
        entry = self.entries.get(key)
        if not entry or len(entry) != 9 or entry[0] != digest or entry[1] != _codes_key(codes):
            # A file's defs and re-exports do not depend on what it receives; its result
            # without calls from other files stays None until it is linted so.
            entry = [
                digest, _codes_key(codes), None, None, sorted(result.defs), {},
                result.reexports, {}, None,
            ]  # fmt: skip
            self.entries[key] = entry
        # What the project's code scan answered, per variant ("" without inbound calls).
        if result.keras_evidence:
            entry[7][inbound] = result.keras_evidence
        else:
            entry[7].pop(inbound, None)
        if not inbound:
            entry[2], entry[3], entry[8] = diagnostics, outbound, reads
        else:
            variants = entry[5]
            variants.pop(inbound, None)
            variants[inbound] = [diagnostics, outbound, reads]
            while len(variants) > _MAX_VARIANTS:
                del variants[next(iter(variants))]
        self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by jitlint\n*\n", encoding="utf-8")
            # Write then rename, so a concurrent run never reads half a file.
            import tempfile  # only when writing: it costs every startup a few ms

            fd, temp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(self.entries, handle, separators=(",", ":"))
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # read-only checkout, full disk, ...: the run's results stand without it


def _encode(diagnostic: Diagnostic) -> dict[str, Any]:
    data = asdict(diagnostic)
    del data["path"]  # shown relative to the working directory, which may change
    return data


def _reads(data: Any, index: int, decode: Callable[[Any], Any]) -> Any:
    """One model's part of an entry's reads ([TF, JAX]); None ("unknown") for anything else."""
    if not isinstance(data, list) or len(data) != 2:
        return None
    return decode(data[index])


def _valid_entry(entry: Any) -> bool:
    """[digest, codes, diagnostics, outbound, defs, variants, reexports, evidence, reads],
    each of its type; what is inside the diagnostics, records and reads is checked as they
    are decoded (reads that do not decode are "unknown"). `evidence`: per variant, the
    project code scans its lint read (root -> answer)."""
    if not isinstance(entry, list) or len(entry) != 9:
        return False
    digest, codes, diagnostics, outbound, defs, variants, reexports, evidence, _reads = entry
    return (
        isinstance(digest, str)
        and isinstance(codes, str)
        # None: the file was only linted with calls from other files (`put`).
        and (isinstance(diagnostics, list) or diagnostics is None)
        and (isinstance(outbound, list) or (outbound is None and diagnostics is None))
        and isinstance(defs, list)
        and all(isinstance(name, str) for name in defs)
        and isinstance(variants, dict)
        and all(
            isinstance(v, list)
            and len(v) == 3
            and isinstance(v[0], list)
            and isinstance(v[1], list)
            for v in variants.values()
        )
        and isinstance(reexports, dict)
        and all(isinstance(v, str) for v in reexports.values())
        and isinstance(evidence, dict)
        and all(
            isinstance(v, dict) and all(isinstance(x, str) for x in v.values())
            for v in evidence.values()
        )
    )


_FIELDS = {
    "code": str, "name": str, "message": str, "line": int, "column": int, "end_line": int,
    "end_column": int, "severity": str,
}  # fmt: skip
_EDIT_FIELDS = {"line": int, "column": int, "end_line": int, "end_column": int, "content": str}


def _typed(
    data: Any, fields: Mapping[str, type], optional: Mapping[str, type] | None = None
) -> None:
    """Raise ValueError unless `data` is a dict with exactly these fields of these types
    (a bool is no int here)."""
    optional = optional or {}
    if not isinstance(data, dict) or not set(fields) <= data.keys() <= set(fields) | set(optional):
        raise ValueError("not an entry of this layout")
    for name, kind in {**fields, **optional}.items():
        value = data.get(name)
        if name in optional and value is None:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{name}: not a {kind.__name__}")


def _decode(data: dict[str, Any], path: str) -> Diagnostic:
    _typed(data, _FIELDS, {"help": str, "fix": dict, "cell": int, "traced_by": str})
    if data["severity"] not in ("error", "warning"):
        raise ValueError("severity")
    fix = data.get("fix")
    if fix is not None:
        _typed(fix, {"applicability": str, "message": str, "edits": list})
        if fix["applicability"] not in ("safe", "unsafe"):
            raise ValueError("applicability")
        for edit in fix["edits"]:
            _typed(edit, _EDIT_FIELDS, {"cell": int})
        edits = tuple(Edit(**edit) for edit in fix["edits"])
        fix = Fix(fix["applicability"], fix["message"], edits)
    return Diagnostic(**{**data, "path": path, "fix": fix})
