"""What TensorFlow says about its own ops, as shipped data: the XLA op table and the
arguments XLA needs as compile-time constants.

`scripts/gen_xla_ops.py` and `scripts/gen_xla_constants.py` generate them
(`jitlint/data/xla_*_tf*.json`) from TensorFlow itself; nothing here imports TensorFlow.
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


CONSTANT_TABLE = "xla_constants_tf2.21.json"


@dataclass(frozen=True)
class ConstantArg:
    """An argument of a TF API that XLA needs as a compile-time constant."""

    position: int
    keyword: str
    op: str  # the op type whose input it becomes
    bounded: bool  # XLA also accepts a bounded dynamic size there (value inference)


@cache
def constant_args() -> dict[str, tuple[ConstantArg, ...]]:
    """API qualified name -> the arguments XLA needs as compile-time constants, from
    `scripts/gen_xla_constants.py` (probed under XLA with TensorFlow). APIs with none are left
    out."""
    text = resources.files("jitlint.data").joinpath(CONSTANT_TABLE).read_text(encoding="utf-8")
    raw = json.loads(text)
    return {
        name: tuple(
            ConstantArg(arg["position"], arg["param"], arg["op"], arg["bounded"]) for arg in args
        )
        for name, args in raw["apis"].items()
        if args
    }
