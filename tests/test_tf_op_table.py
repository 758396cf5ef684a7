"""The shipped XLA tables (JIT203 ops, JIT202 compile-time constants) are what the scripts/
generators produce from TensorFlow."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jitlint.model.library.tf_facts import (
    CONSTANT_TABLE,
    OP_TABLE,
    api_output,
    constant_args,
    op_table,
)

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "jitlint/data" / OP_TABLE


def test_table_loads_without_tensorflow_and_records_its_version():
    version, apis = op_table()
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert raw["generator"] == "scripts/gen_xla_ops.py"
    assert version == raw["tensorflow_version"]
    assert f"xla_ops_tf{'.'.join(version.split('.')[:2])}.json" == OP_TABLE
    assert apis["tensorflow.print"].no_kernel_cpu == ("PrintV2", "StringFormat")
    assert apis["tensorflow.py_function"].no_kernel_cpu == ("EagerPyFunc",)
    assert apis["tensorflow.exp"].no_kernel_cpu == ()
    assert apis["tensorflow.unique"].dynamic_shape == ("Unique",)


def test_what_the_common_apis_return():
    # A Python list of tensors, its length static: Python iterates it in graph code too.
    for name in ("split", "unstack", "meshgrid", "dynamic_partition", "compat.v1.split"):
        assert api_output(f"tensorflow.{name}") == "list", name
    for name in ("reshape", "math.reduce_sum", "reduce_any", "nn.softmax", "random.normal"):
        assert api_output(f"tensorflow.{name}") == "tensor", name
    assert api_output("tensorflow.nn.moments") is None  # not probed


@pytest.mark.tensorflow
def test_shipped_table_equals_what_the_script_produces_now(tmp_path):
    tf = pytest.importorskip("tensorflow")
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    if raw["tensorflow_version"] != tf.__version__:
        pytest.skip(f"table built with TF {raw['tensorflow_version']}, installed {tf.__version__}")
    # A fresh process, as the script is meant to run: in a process where other tests have
    # already used TensorFlow, get_gpu_kernel_names() was observed to return [].
    out = tmp_path / OP_TABLE
    subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_xla_ops.py"), str(out)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")


CONSTANTS_SHIPPED = ROOT / "jitlint/data" / CONSTANT_TABLE


def test_constant_table_loads_without_tensorflow_and_states_what_xla_does():
    raw = json.loads(CONSTANTS_SHIPPED.read_text(encoding="utf-8"))
    assert raw["generator"] == "scripts/gen_xla_constants.py"
    assert raw["tensorflow_version"] == op_table()[0]
    table = constant_args()
    tile = {a.keyword: a for a in table["tensorflow.tile"]}
    assert (tile["multiples"].position, tile["multiples"].op) == (1, "Tile")
    assert tile["multiples"].bounded  # XLA bounds a data-dependent size there
    assert not {a.keyword: a for a in table["tensorflow.one_hot"]}["depth"].bounded
    # Implicit: bincount's output size is max(arr) + 1, so the data itself must be constant.
    assert "arr" in {a.keyword for a in table["tensorflow.math.bincount"]}
    # Aliases are the same function object, so they carry the same arguments.
    assert table["tensorflow.reduce_sum"] == table["tensorflow.math.reduce_sum"]
    # Probed and found to compile with a computed argument: not listed.
    assert "tensorflow.slice" not in table


@pytest.mark.tensorflow
def test_shipped_constant_table_equals_what_the_script_produces_now(tmp_path):
    tf = pytest.importorskip("tensorflow")
    raw = json.loads(CONSTANTS_SHIPPED.read_text(encoding="utf-8"))
    if raw["tensorflow_version"] != tf.__version__:
        pytest.skip(f"table built with TF {raw['tensorflow_version']}, installed {tf.__version__}")
    out = tmp_path / CONSTANT_TABLE
    subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_xla_constants.py"), str(out)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    assert out.read_text(encoding="utf-8") == CONSTANTS_SHIPPED.read_text(encoding="utf-8")
