"""The project pass's memo (model/project/files.py `inbound_for`): what each file's records
resolve to is kept while nothing its resolution looked up changed, and every answer is the
one a fresh resolution gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitlint.model.jax.crossfile.records import CallRecord
from jitlint.model.project import files
from jitlint.model.project.files import ProjectFiles, inbound_for
from jitlint.model.project.reads import NotedLookups, changed_paths
from jitlint.model.tf_records import TfRecord


def _call(target: str) -> CallRecord:
    return CallRecord(target, 3, "`step`", "compiled by `jax.jit`", 1, (("x", 1),), False)


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, str]:
    names = ("__init__", "a", "b", "c", "d", "e")
    paths = {}
    for name in names:
        path = tmp_path / "pkg" / f"{name}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("")
        paths[name] = str(path)
    return paths


def _resolve_all(
    project: ProjectFiles,
    outbound: dict[str, list],
    defs: dict[str, frozenset[str]],
    reexports: dict[str, dict[str, str]],
    memo: dict,
) -> dict:
    got = inbound_for(project, outbound, defs, reexports, memo=memo)
    assert got == inbound_for(project, outbound, defs, reexports)  # no memo: fresh
    return got


def test_only_files_whose_lookups_changed_are_resolved_again(tree, monkeypatch):
    project = ProjectFiles.build(((p, p) for p in tree.values()), None)
    outbound: dict[str, list] = {path: [] for path in tree.values()}
    outbound[tree["a"]] = [_call(".b.f"), _call(".e.g")]  # e re-exports b's g
    outbound[tree["c"]] = [TfRecord(".d.FLOAT", 2, "import")]
    outbound[tree["d"]] = [TfRecord("FLOAT", 1, "export", "float64")]
    defs = {path: frozenset() for path in tree.values()}
    defs[tree["b"]] = frozenset({"f", "g"})
    reexports: dict[str, dict[str, str]] = {path: {} for path in tree.values()}
    reexports[tree["e"]] = {"g": ".b.g"}
    resolving: list[str] = []
    real = files.received_from

    def counted(project, caller, *args):
        resolving.append(caller)
        return real(project, caller, *args)

    monkeypatch.setattr(files, "received_from", counted)
    memo: dict = {}
    first = _resolve_all(project, outbound, defs, reexports, memo)
    assert [r.function for r in first[tree["b"]]] == ["f", "g"]
    assert [r.status for r in first[tree["c"]]] == ["float64"]

    # d exports another fact: d (new records) and c, which looked d up, are resolved again.
    outbound[tree["d"]] = [TfRecord("FLOAT", 1, "export", "float32")]
    resolving.clear()
    second = inbound_for(project, outbound, defs, reexports, memo=memo)
    assert set(resolving) == {tree["c"], tree["d"]}
    assert second == inbound_for(project, outbound, defs, reexports)
    assert [r.status for r in second[tree["c"]]] == ["float32"]

    # b no longer defines f; then e no longer re-exports g: a's calls follow each change.
    defs[tree["b"]] = frozenset({"g"})
    resolving.clear()
    third = inbound_for(project, outbound, defs, reexports, memo=memo)
    assert set(resolving) == {tree["a"]}
    assert third == inbound_for(project, outbound, defs, reexports)
    assert [r.function for r in third[tree["b"]]] == ["g"]
    reexports[tree["e"]] = {}
    assert tree["b"] not in _resolve_all(project, outbound, defs, reexports, memo)

    # Nothing changed: nothing is resolved again.
    resolving.clear()
    inbound_for(project, outbound, defs, reexports, memo=memo)
    assert resolving == []


def test_noted_lookups_note_every_path_asked_and_refuse_whole_reads():
    seen: set[str] = set()
    table = NotedLookups({"x": 1}, seen)
    assert table.get("x") == 1 and table.get("y") is None and "z" not in table
    assert seen == {"x", "y", "z"}
    with pytest.raises(TypeError):
        list(table)
    with pytest.raises(TypeError):
        bool(table)


def test_changed_paths_include_added_removed_and_unequal_entries():
    before = {"a": frozenset({"f"}), "b": {"g": ".x.g"}, "c": 1}
    after = {"a": frozenset({"f"}), "b": {"g": ".y.g"}, "d": 2}
    assert changed_paths(before, after) == {"b", "c", "d"}


def test_returned_values_follow_their_export_and_the_importers_names(tree):
    project = ProjectFiles.build(((p, p) for p in tree.values()), None)
    source = {tree["a"]: b"from .b import make\nstep = make()\n"}
    outbound: dict[str, list] = {path: [] for path in tree.values()}
    outbound[tree["b"]] = [TfRecord("make", 1, "export", 'jax:value:{"kind":"array"}')]
    defs = {path: frozenset() for path in tree.values()}
    reexports: dict[str, dict[str, str]] = {path: {} for path in tree.values()}
    reexports[tree["a"]] = {"make": ".b.make"}
    memo: dict = {}
    text = source.get  # one reader for the run, as the project pass has

    def ask() -> dict:
        got = inbound_for(project, outbound, defs, reexports, text, memo)
        assert got == inbound_for(project, outbound, defs, reexports, text)
        return got

    assert [r.status for r in ask()[tree["a"]]] == ['jax:value:{"kind":"array"}']
    outbound[tree["b"]] = [TfRecord("make", 1, "export", 'jax:value:{"kind":"static"}')]
    assert [r.status for r in ask()[tree["a"]]] == ['jax:value:{"kind":"static"}']
    reexports[tree["a"]] = {}
    assert tree["a"] not in ask()
