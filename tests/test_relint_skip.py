"""The project pass skips a relint whose records differ from the last lint's only in records
that lint never read (engine/linter.py `may_change`, model/tf_records.py `TfReads`)."""

from __future__ import annotations

import collections
import os
from dataclasses import replace as dataclasses_replace
from pathlib import Path

import pytest
from helpers import run_cli

import jitlint.engine.project as project_pass
import jitlint.engine.runner as runner
from jitlint.engine.linter import FileResult, lint_text, may_change
from jitlint.model.jax.crossfile.reads import (
    JaxReads,
    NotedInbound,
    any_name_holding,
    defined_names,
)
from jitlint.model.jax.crossfile.records import Inbound
from jitlint.model.tf_records import ImportedFacts, TfInbound, TfReads
from jitlint.rules._index import INDEX

ALL_CODES = frozenset(INDEX) | {"JIT001", "JIT002"}

UTIL = """\
import tensorflow as tf
from pkg.consts import FLOAT


def check(x):
    if tf.reduce_sum(x) > 0:
        raise ValueError("positive")
    return tf.cast(x, FLOAT)
"""
GRAPH = TfInbound("check", "pkg/train.py:4", "graph", origin="`tf.function`")
EAGER = TfInbound("check", "pkg/main.py:2", "eager")
# What `FLOAT` is, as the module that defines it says, and a fact about a name never used.
FLOAT_FACT = TfInbound("pkg.consts.FLOAT", "pkg/consts.py:1", "fact", "dtype:float64")
OTHER_FACT = TfInbound("pkg.consts.HALF", "pkg/consts.py:2", "fact", "dtype:float16")


def _lint(inbound: list[TfInbound]) -> FileResult:
    return lint_text(UTIL, "pkg/util.py", ALL_CODES, inbound=tuple(inbound))


def _same(a: FileResult, b: FileResult) -> bool:
    return (a.diagnostics, a.outbound, a.defs, a.reexports) == (
        b.diagnostics,
        b.outbound,
        b.defs,
        b.reexports,
    )


def test_a_fact_no_lookup_asked_for_cannot_change_the_result() -> None:
    first = _lint([GRAPH, FLOAT_FACT])
    assert first.tf_reads is not None
    assert "pkg.consts.FLOAT" in first.tf_reads.fact_names
    assert "pkg.consts.HALF" not in first.tf_reads.fact_names
    assert not may_change(first, [GRAPH, FLOAT_FACT], [GRAPH, FLOAT_FACT, OTHER_FACT])
    assert _same(first, _lint([GRAPH, FLOAT_FACT, OTHER_FACT]))


def test_records_of_kinds_the_lint_read_may_change_it() -> None:
    without = _lint([FLOAT_FACT])
    assert may_change(without, [FLOAT_FACT], [GRAPH, FLOAT_FACT])
    # And they do: the graph call makes `check` graph code, with its hazard.
    assert not _same(without, _lint([GRAPH, FLOAT_FACT]))


def test_a_fact_looked_up_may_change_it() -> None:
    first = _lint([GRAPH])
    changed = FLOAT_FACT
    assert may_change(first, [GRAPH], [GRAPH, changed])


def test_a_record_that_opens_the_tf_rules_is_always_read() -> None:
    quiet = lint_text("def check(x):\n    return x\n", "pkg/util.py", ALL_CODES, inbound=(EAGER,))
    assert quiet.tf_reads is not None
    assert may_change(quiet, [EAGER], [EAGER, GRAPH])
    # An "eager" record opens nothing: a lint that built no TF model never read it.
    assert not may_change(quiet, [], [EAGER])


def test_unknown_reads_always_relint() -> None:
    assert may_change(FileResult("pkg/util.py"), [], [])


def test_what_the_facts_note() -> None:
    facts = ImportedFacts([FLOAT_FACT, OTHER_FACT, GRAPH])
    assert facts.get("pkg.consts.FLOAT") == "dtype:float64"
    assert facts.asked == {"pkg.consts.FLOAT"} and not facts.prefixes and not facts.asked_any
    assert facts
    assert facts.asked_any
    assert facts.starting("dtype:float1") == ["dtype:float16"]
    assert facts.prefixes == {"dtype:float1"}


def test_reads_differ_only_where_read() -> None:
    reads = TfReads(frozenset({"graph"}), frozenset({"pkg.consts.FLOAT"}), frozenset(), True)
    assert not reads.differ([GRAPH], [GRAPH, EAGER])
    assert reads.differ([GRAPH], [])
    assert not reads.differ([FLOAT_FACT], [FLOAT_FACT, OTHER_FACT])
    assert reads.differ([], [FLOAT_FACT])
    # Whether there is any fact was asked: from none to one unasked name differs.
    assert reads.differ([], [OTHER_FACT])
    floatx = TfReads(frozenset(), frozenset(), frozenset({"floatx:"}), False)
    assert not floatx.differ([FLOAT_FACT], [FLOAT_FACT, OTHER_FACT])
    floatx_fact = TfInbound("pkg.consts.X", "pkg/consts.py:3", "fact", "floatx:float64")
    assert floatx.differ([], [floatx_fact])


# ---- the project pass ---------------------------------------------------------------------
# `train` imports `util`, which imports `consts`: `util` is linted before `consts`, whose
# dtype facts reach it afterwards, so the project pass comes back to it.
PROJECT = {
    "pyproject.toml": "[tool.jitlint]\nselect = ['ALL']\n",
    "pkg/__init__.py": "",
    "pkg/consts.py": "import tensorflow as tf\n\nFLOAT = tf.float64\nHALF = tf.float16\n",
    "pkg/train.py": (
        "import tensorflow as tf\nfrom pkg.util import check\n\n\n"
        "@tf.function\ndef step(x):\n    return check(x)\n"
    ),
}
UTIL_IMPORTING = """\
import tensorflow as tf
from pkg.consts import FLOAT, HALF


def check(x):
    if tf.reduce_sum(x) > 0:
        raise ValueError("positive")
    return {returned}
"""


def _run(root: Path, *args: str) -> tuple[str, dict[str, int]]:
    counts: collections.Counter[str] = collections.Counter()
    lint = runner.lint_text

    def counted(source: object, path: str, *rest: object, **options: object) -> FileResult:
        counts[path] += 1
        return lint(source, path, *rest, **options)  # type: ignore[arg-type]

    before = os.getcwd()
    os.chdir(root)
    runner.lint_text = counted  # type: ignore[assignment]
    try:
        status, out, err = run_cli("--format", "json", "-j1", *args, "pkg")
    finally:
        runner.lint_text = lint
        os.chdir(before)
    assert status == 1 and "error" not in err, err
    return out, dict(counts)


def _write(root: Path, returned: str) -> None:
    for name, text in {**PROJECT, "pkg/util.py": UTIL_IMPORTING.format(returned=returned)}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize(("returned", "relinted"), [("x", False), ("tf.cast(x, FLOAT)", True)])
def test_the_project_pass_skips_only_relints_that_cannot_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, returned: str, relinted: bool
) -> None:
    _write(tmp_path, returned)
    out, counts = _run(tmp_path, "--no-cache")
    # `util` receives the facts of FLOAT and HALF after its lint; it looks FLOAT up only
    # where it casts to it.
    assert counts["pkg/util.py"] == (2 if relinted else 1)
    with monkeypatch.context() as patch:
        patch.setattr(project_pass, "may_change", lambda *args: True)
        every, always = _run(tmp_path, "--no-cache")
    assert always["pkg/util.py"] == 2
    assert out == every
    # The cache keeps what each lint read: a warm run skips the same relints, lints nothing.
    assert _run(tmp_path)[0] == out
    assert _run(tmp_path) == (out, {})


# ---- the JAX model's records (model/jax/crossfile/reads.py) --------------------------------
JAX_UTIL = """\
import jax.numpy as jnp
from .nets import Net


def helper(x):
    if x > 0:
        return jnp.sin(x)
    return x


class Model(Net):
    def __call__(self, x):
        return helper(x)
"""
TRACED = Inbound(
    "helper", "pkg/train.py:7", "`step`", "compiled by `jax.jit`", 1, (("x", 1),), False
)
# A base class's framework as the module defining it says, and a fact for a name never asked.
NET_FACT = TfInbound(".nets.Net.__framework__", "pkg/nets.py", "fact", "jax:module:equinox")
UNREAD_FACT = TfInbound(".other.Thing.__framework__", "pkg/other.py", "fact", "jax:module:linen")


def _lint_jax(inbound: list) -> FileResult:
    return lint_text(JAX_UTIL, "pkg/util.py", ALL_CODES, inbound=tuple(inbound))


def test_a_jax_record_no_lookup_asked_for_cannot_change_the_result() -> None:
    first = _lint_jax([TRACED])
    assert first.jax_reads is not None
    assert NET_FACT.function in first.jax_reads.names
    assert UNREAD_FACT.function not in first.jax_reads.names
    assert not may_change(first, [TRACED], [TRACED, UNREAD_FACT])
    assert _same(first, _lint_jax([TRACED, UNREAD_FACT]))
    # The base's framework is looked up: its fact may change the result (and does).
    assert may_change(first, [TRACED], [TRACED, NET_FACT])
    assert not _same(first, _lint_jax([TRACED, NET_FACT]))


def test_jax_records_arriving_where_there_were_none_are_read() -> None:
    alone = _lint_jax([])
    assert alone.jax_reads is not None and alone.jax_reads.any_record
    assert may_change(alone, [], [UNREAD_FACT])


def test_what_the_jax_model_notes() -> None:
    inbound = NotedInbound({"helper": [TRACED], ".m.f": [UNREAD_FACT]})
    assert inbound.get("helper") == [TRACED] and "g" not in inbound
    assert list(defined_names(inbound)) == ["helper", ".m.f"]
    assert any_name_holding(inbound, ".m.")
    assert inbound
    reads = inbound.reads()
    assert reads == JaxReads(frozenset({"helper", "g"}), frozenset({".m."}), True, True, False)
    assert JaxReads.from_json(reads.to_json()) == reads
    list(inbound)
    assert inbound.reads().whole


def test_jax_reads_differ_only_where_read() -> None:
    by_name = JaxReads(frozenset({"helper"}), frozenset(), False, False, False)
    assert not by_name.differ([TRACED], [TRACED, UNREAD_FACT], frozenset({"helper"}))
    assert by_name.differ([TRACED], [], frozenset({"helper"}))
    defined = JaxReads(frozenset(), frozenset(), False, True, False)
    local = TfInbound("Model.__framework__", "pkg/x.py", "fact", "jax:module:equinox")
    assert defined.differ([], [local], frozenset({"Model", "Model.__call__"}))
    assert not defined.differ([], [UNREAD_FACT], frozenset({"Model"}))
    parts = JaxReads(frozenset(), frozenset({".__framework__"}), False, False, False)
    assert parts.differ([], [UNREAD_FACT], frozenset())
    asked_any = JaxReads(frozenset(), frozenset(), True, False, False)
    assert asked_any.differ([], [UNREAD_FACT], frozenset())
    assert not asked_any.differ([NET_FACT], [NET_FACT, UNREAD_FACT], frozenset())
    whole = JaxReads(frozenset(), frozenset(), False, False, True)
    assert whole.differ([NET_FACT], [NET_FACT, UNREAD_FACT], frozenset())


# ---- "use" records: read by the names they can match, each (status, place) once ----------
LAYER = """\
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            x = x * 2.0
        return x


class Settings:
    pass


def build():
    return tf.keras.Sequential([Scale()])
"""
PLAIN_USE = TfInbound("Scale", "pkg/train.py:4", "use", "plain")
PLAIN_USE_ELSEWHERE = TfInbound("Scale", "pkg/eval.py:9", "use", "plain")
XLA_USE = TfInbound("Scale", "pkg/train.py:7", "use", "xla")
SETTINGS_USE = TfInbound("Settings", "pkg/train.py:5", "use", "xla")


def _lint_layer(inbound: list[TfInbound]) -> FileResult:
    return lint_text(LAYER, "pkg/layers.py", ALL_CODES, inbound=tuple(inbound))


def test_use_records_are_read_by_name() -> None:
    first = _lint_layer([PLAIN_USE])
    reads = first.tf_reads
    assert reads is not None and "use" not in reads.kinds
    # The Keras class and the model-building function; not the plain class.
    assert reads.use_names == {"Scale", "build"}
    # A record of a name the lint never looked up, and a second record saying what one
    # already said of a name it did (another site, the same status): no relint, and
    # indeed the same result.
    for more in ([SETTINGS_USE], [PLAIN_USE_ELSEWHERE]):
        assert not may_change(first, [PLAIN_USE], [PLAIN_USE, *more])
        assert _same(first, _lint_layer([PLAIN_USE, *more]))


def test_a_new_status_of_a_name_read_may_change_it() -> None:
    first = _lint_layer([PLAIN_USE])
    assert may_change(first, [PLAIN_USE], [PLAIN_USE, XLA_USE])
    # And it does: a model compiled with XLA runs the layer's `call`, with its hazard.
    assert not _same(first, _lint_layer([PLAIN_USE, XLA_USE]))


def test_use_reads_differ_only_where_read() -> None:
    reads = TfReads(frozenset(), frozenset(), frozenset(), False, frozenset({"Scale"}))
    assert not reads.differ([PLAIN_USE], [PLAIN_USE, PLAIN_USE_ELSEWHERE, SETTINGS_USE])
    assert reads.differ([PLAIN_USE], [PLAIN_USE, XLA_USE])
    # An "xla" record's place is part of its message: another place differs.
    assert reads.differ([XLA_USE], [dataclasses_replace(XLA_USE, site="pkg/other.py:1")])
    # Order: what a name received first leads (the first "xla" place is the one named).
    other = dataclasses_replace(XLA_USE, site="pkg/other.py:1")
    assert reads.differ([XLA_USE, other], [other, XLA_USE])
    assert TfReads.from_json(reads.to_json()) == reads
