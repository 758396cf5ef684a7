"""Backup copies in an application's tree (engine/orphans.py): a module no file of the run
imports, whose Keras classes a module the run imports defines again, contributes no graph
roots by Keras' contract; a library's module, an imported one, one whose classes are its
own, and the one-file run keep the contract (issue 29)."""

from __future__ import annotations

from pathlib import Path

from test_project import check, where, write

from jitlint.api import lint_source

LOSS = """\
import tensorflow as tf


class DetectionLoss(tf.keras.losses.Loss):
    def call(self, y_true, y_pred):
        return tf.reduce_mean(tf.square(y_true - y_pred))
"""
BACKUP = """\
import tensorflow as tf


class {name}(tf.keras.losses.Loss):
    def call(self, y_true, y_pred):
        error = tf.square(y_true - y_pred)
        print(error.numpy())
        return tf.reduce_mean(error)
"""
TRAIN = """\
import tensorflow as tf
from model.loss import DetectionLoss

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(loss=DetectionLoss())
"""


def application(root: Path, name: str = "DetectionLoss", **more: str) -> Path:
    files = {
        "train.py": TRAIN,
        "model/__init__.py": "",
        "model/loss.py": LOSS,
        "model/loss_bak.py": BACKUP.format(name=name),
    }
    files.update(more)
    return write(root, files)


def findings(root: Path) -> list[tuple[object, object, object]]:
    status, found, err = check(root, ".")
    assert status in (0, 1), err
    return [site for site in where(found) if site[2] == "JIT204"]


def test_an_unimported_copy_of_an_imported_module_has_no_contract_roots(tmp_path: Path) -> None:
    assert findings(application(tmp_path)) == []


def test_the_one_file_run_of_the_copy_keeps_the_contract(tmp_path: Path) -> None:
    root = application(tmp_path)
    source = (root / "model/loss_bak.py").read_text()
    assert [d.code for d in lint_source(source, "model/loss_bak.py")] == ["JIT204"]


def test_an_unimported_module_of_its_own_classes_keeps_the_contract(tmp_path: Path) -> None:
    # Not defined again anywhere: how a library's public module looks too.
    assert findings(application(tmp_path, name="IouLoss")) == [("model/loss_bak.py", 7, "JIT204")]


def test_a_module_the_run_imports_keeps_the_contract(tmp_path: Path) -> None:
    more = {"evaluate.py": "from model import loss_bak\n"}
    assert findings(application(tmp_path, **more)) == [("model/loss_bak.py", 7, "JIT204")]


def test_a_distributions_module_keeps_the_contract(tmp_path: Path) -> None:
    more = {"setup.py": "from setuptools import setup\nsetup(name='det')\n"}
    assert findings(application(tmp_path, **more)) == [("model/loss_bak.py", 7, "JIT204")]


def test_a_copy_that_uses_its_class_itself_keeps_it(tmp_path: Path) -> None:
    # The copy compiles a model with its own loss: that use decides, not the contract.
    own = BACKUP.format(name="DetectionLoss") + (
        "\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "model.compile(loss=DetectionLoss())\n"
    )
    more = {"model/loss_bak.py": own}
    assert findings(application(tmp_path, **more)) == [("model/loss_bak.py", 7, "JIT204")]
