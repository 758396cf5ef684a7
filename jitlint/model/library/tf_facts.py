"""What TensorFlow says about its own ops, as shipped data: the XLA op table.

`scripts/gen_xla_ops.py` generates `jitlint/data/xla_ops_tf*.json` from TensorFlow itself;
nothing here imports TensorFlow.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

OP_TABLE = "xla_ops_tf2.21.json"


@dataclass(frozen=True)
class XlaSupport:
    ops: tuple[str, ...]
    no_kernel_cpu: tuple[str, ...]
    no_kernel_gpu: tuple[str, ...]
    dynamic_shape: tuple[str, ...]


@cache
def op_table() -> tuple[str, dict[str, XlaSupport]]:
    """(TF version the table was built with, API qualified name -> its XLA support)."""
    text = resources.files("jitlint.data").joinpath(OP_TABLE).read_text(encoding="utf-8")
    raw = json.loads(text)
    apis = {
        name: XlaSupport(
            tuple(entry["ops"]),
            tuple(entry["no_xla_kernel_cpu"]),
            tuple(entry["no_xla_kernel_gpu"]),
            tuple(entry["dynamic_shape"]),
        )
        for name, entry in raw["apis"].items()
    }
    return raw["tensorflow_version"], apis
