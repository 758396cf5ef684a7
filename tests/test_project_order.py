"""The project pass lints importing files first (engine/imports.py, engine/project.py), so
a helper module receives the calls traced code makes to it at its first lint."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from helpers import run_cli
from test_project import FILLER, TRAIN, project, where, write

import jitlint.engine.runner as runner
from jitlint.engine.class_bases import framework_questions
from jitlint.engine.imports import import_waves, imported_files
from jitlint.model.project.files import ProjectFiles


def files_of(root: Path, names: list[str]) -> tuple[ProjectFiles, dict[str, str]]:
    paths = {name: str(root / name) for name in names}
    return ProjectFiles.build(((p, n) for n, p in paths.items()), str(root)), paths


def test_imports_read_from_the_text(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from .model import net  # re-export\n",
            "pkg/model.py": "",
            "pkg/util.py": "",
            "pkg/io.py": "",
            "pkg/train.py": (
                "import os, pkg.util as u\n"
                "from . import (\n    io,\n    missing)\n"
                "def f():\n    from .model import net\n"
                "text = 'import pkg.nothing'\n"
            ),
        },
    )
    names = ["pkg/__init__.py", "pkg/model.py", "pkg/util.py", "pkg/io.py", "pkg/train.py"]
    project, paths = files_of(tmp_path, names)
    source = (tmp_path / "pkg/train.py").read_bytes()
    found = imported_files(project, paths["pkg/train.py"], source)
    expected = {"pkg/__init__.py", "pkg/util.py", "pkg/io.py", "pkg/model.py"}
    assert found == {paths[name] for name in expected}


def test_waves_put_importers_first_and_break_cycles(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/train.py": "from pkg import model, util\n",
            "pkg/model.py": "from pkg import util\nfrom pkg import layers\n",
            "pkg/layers.py": "from pkg import model\n",  # a cycle with model
            "pkg/util.py": "",
        },
    )
    names = ["pkg/__init__.py", "pkg/train.py", "pkg/model.py", "pkg/layers.py", "pkg/util.py"]
    project, paths = files_of(tmp_path, names)
    waves = import_waves(project, list(paths.values()), {})
    order = {path: at for at, wave in enumerate(waves) for path in wave}
    assert sorted(order) == sorted(paths.values())
    assert order[paths["pkg/train.py"]] < order[paths["pkg/model.py"]]
    assert order[paths["pkg/model.py"]] < order[paths["pkg/util.py"]]
    # The cycle is cut once: one of its two files waits for the other.
    assert order[paths["pkg/layers.py"]] != order[paths["pkg/model.py"]]


def test_an_import_of_the_own_package_is_not_waited_for(tmp_path: Path) -> None:
    """`import pkg` in modules of `pkg` closes cycles through `pkg/__init__.py`; cut there,
    the module that imports `layers` goes before it, as it would without them (cut where the
    greedy order cuts, `layers` went first)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import app, layers\n",
            "pkg/app.py": "from pkg.layers import Dense\n",
            "pkg/layers.py": "import pkg\nfrom pkg import a, b\n",
            "pkg/a.py": "import pkg\n",
            "pkg/b.py": "import pkg\n",
        },
    )
    names = ["pkg/__init__.py", "pkg/app.py", "pkg/layers.py", "pkg/a.py", "pkg/b.py"]
    project, paths = files_of(tmp_path, names)
    waves = import_waves(project, list(paths.values()), {})
    order = {path: at for at, wave in enumerate(waves) for path in wave}
    assert order[paths["pkg/__init__.py"]] < order[paths["pkg/app.py"]]
    assert order[paths["pkg/app.py"]] < order[paths["pkg/layers.py"]]
    assert order[paths["pkg/layers.py"]] < order[paths["pkg/a.py"]]


def lint_counts(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[Counter, list]:
    counts: Counter[str] = Counter()
    real = runner.lint_text

    def counting(source, path, *rest, **kwargs):  # type: ignore[no-untyped-def]
        counts[path] += 1
        return real(source, path, *rest, **kwargs)

    monkeypatch.setattr(runner, "lint_text", counting)
    before = os.getcwd()
    os.chdir(root)
    try:
        _, out, err = run_cli("--format", "json", "--no-cache", *args, "pkg")
    finally:
        os.chdir(before)
    assert "error" not in err, err
    return counts, json.loads(out) if out.strip() else []


def test_a_helper_receives_its_calls_at_its_first_lint(tmp_path, monkeypatch):
    root = project(tmp_path, TRAIN)
    write(root, FILLER)
    counts, found = lint_counts(root, monkeypatch, "-j1")
    assert where(found) == [("pkg/util.py", 5, "JIT101"), ("pkg/util.py", 15, "JIT102")]
    assert counts["pkg/util.py"] == 1
    assert set(counts.values()) == {1}


def test_an_import_cycle_still_gets_its_calls(tmp_path, monkeypatch):
    """util imports train (a cycle): one of them is linted before the other's calls are
    known, and the second round gives them."""
    root = project(tmp_path, TRAIN)
    util = (root / "pkg/util.py").read_text()
    (root / "pkg/util.py").write_text("from pkg import train\n" + util)
    counts, found = lint_counts(root, monkeypatch, "-j1")
    assert where(found) == [("pkg/util.py", 6, "JIT101"), ("pkg/util.py", 16, "JIT102")]
    assert max(counts.values()) <= 2


KERAS_CHAIN = {
    "pkg/__init__.py": "",
    "pkg/base.py": "import tensorflow as tf\n\n\nclass Base(tf.keras.layers.Layer):\n    pass\n",
    "pkg/helpers.py": (
        "import tensorflow as tf\n\n\n"
        "def f(x):\n    if tf.reduce_sum(x) > 0:\n        return x\n    return -x\n"
    ),
    "pkg/mid.py": (
        "import tensorflow as tf\nfrom pkg.helpers import f\n\n\n"
        "def g(x):\n    return f(tf.abs(x))\n"
    ),
    "pkg/sub.py": (
        "import tensorflow as tf\nfrom pkg.base import Base\nfrom pkg.helpers import f\n"
        "from pkg.mid import g\n\n\n"
        "class Sub(Base):\n    def call(self, x):\n        return g(x) + f(x)\n"
    ),
}


def test_graph_calls_of_a_subclass_reach_a_helper_in_one_more_lint(tmp_path, monkeypatch):
    """sub.py learns that its base is a Keras layer only after base.py's lint (importing
    files go first); its `call`'s graph calls then reach helpers.py directly and through
    mid.py. The second round goes through the files in the same order, so helpers.py gets
    both at its second lint, not one per round."""
    root = write(tmp_path, KERAS_CHAIN)
    counts, found = lint_counts(root, monkeypatch, "-j1", "--select", "JIT2")
    assert ("pkg/helpers.py", 5, "JIT205") in where(found)
    assert counts["pkg/helpers.py"] == 2
    assert max(counts.values()) <= 2


def test_the_framework_questions_read_from_the_text() -> None:
    source = (
        b"import pkg.mod as m\nimport equinox as eqx\n"
        b"from .base import (AbstractSolver as AS,\n    Other)\n"
        b"def f():\n    from .inner import Hidden\n"
        b"class A(AS, m.Base[T], metaclass=Meta):\n    x: int\n\n    def f(self):\n        pass\n"
        b"class B(\n    eqx.Module,\n    Hidden,\n    Unknown,\n):\n"
        b"    async def g(self):\n        pass\n"
        b"    class Nested(Other):\n        def h(self):\n            pass\n"
        b"class C(Other):  # no method: it asks nothing\n    pass\n"
        b"def later():\n    pass\n"
    )
    assert framework_questions(source) == [
        ".base.AbstractSolver.__framework__",
        "equinox.Module.__framework__",
        "pkg.mod.Base.__framework__",
    ]


def test_a_subclass_gets_its_bases_framework_at_its_first_lint(tmp_path, monkeypatch):
    """The base's module imports equinox: it is linted first, and the subclass is given the
    answer to its question (`.base.Base.__framework__`) before its lint, not after."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "import equinox as eqx\n\n\nclass Base(eqx.Module):\n    pass\n",
            "pkg/leaf.py": (
                "import jax\n\nfrom .base import Base\n\n\nclass Leaf(Base):\n"
                "    def __call__(self, x: jax.Array):\n        return float(x.sum())\n"
            ),
        },
    )
    counts, found = lint_counts(tmp_path, monkeypatch, "-j1")
    assert [(f["path"], f["line"], f["code"]) for f in found] == [("pkg/leaf.py", 8, "JIT102")]
    assert counts[os.path.join("pkg", "leaf.py")] == 1
    assert set(counts.values()) == {1}
