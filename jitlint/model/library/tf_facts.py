"""What TensorFlow says about its own ops, as shipped data: the XLA op table, what the common
APIs return (one tensor or a list of them), and the arguments XLA needs as compile-time
constants.

`scripts/gen_xla_ops.py` and `scripts/gen_xla_constants.py` generate them
(`jitlint/data/xla_*_tf*.json`) from TensorFlow itself; nothing here imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from jitlint.model.library import shipped_json

OP_TABLE = "xla_ops_tf2.21.json"


@dataclass(frozen=True)
class XlaSupport:
    """The TF ops XLA compiles, lacks a kernel for per device, or gives a dynamic shape."""

    ops: tuple[str, ...]
    no_kernel_cpu: tuple[str, ...]
    no_kernel_gpu: tuple[str, ...]
    dynamic_shape: tuple[str, ...]


@cache
def _op_file() -> dict[str, Any]:
    return shipped_json(OP_TABLE)


@cache
def op_table() -> tuple[str, dict[str, XlaSupport]]:
    """(TF version the table was built with, API qualified name -> its XLA support)."""
    raw = _op_file()
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


def api_output(name: str) -> str | None:
    """What the TF API `name` (`tensorflow.split`) returns, called once inside a tf.function:
    "tensor" (one), "list" (a Python list of tensors, its length static), "tuple", "other";
    None when it was not probed (scripts/gen_xla_ops.py, `outputs`)."""
    return _op_file().get("outputs", {}).get(name)


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
    raw = shipped_json(CONSTANT_TABLE)
    return {
        name: tuple(
            ConstantArg(arg["position"], arg["param"], arg["op"], arg["bounded"]) for arg in args
        )
        for name, args in raw["apis"].items()
        if args
    }
