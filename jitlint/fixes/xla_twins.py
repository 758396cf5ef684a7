"""Calls of TensorFlow ops with no XLA kernel rewritten with ops that have one, computing the
same result, so the code can stay compiled with XLA (the alternative, `xla_fix.py`, turns
XLA off).

- `tf.histogram_fixed_width(values, value_range, nbins)` becomes
  `tf.math.unsorted_segment_sum(tf.ones_like(values, dtype=tf.int32),
  tf.histogram_fixed_width_bins(values, value_range, nbins=nbins), nbins)`: the bin of
  each value (TensorFlow's own Python function, made of ops XLA compiles), counted per
  bin. The bins are the kernel's: `floor(nbins * (v - lo) / (hi - lo))` clipped into
  `[0, nbins - 1]`. Unsafe: `values` is read twice (only a name or attribute is accepted
  there), and `nbins` must be a compile-time constant for XLA (a literal, or a name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.python.binding import Signature, bind_call

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

# tf.histogram_fixed_width(values, value_range, nbins=100, dtype=tf.int32, name=None)
_HISTOGRAM = Signature(
    positional=("values", "value_range", "nbins", "dtype", "name"),
    defaults=(
        ("nbins", cst.Integer("100")),
        ("dtype", cst.parse_expression("tf.int32")),
        ("name", cst.Name("None")),
    ),
)
_HISTOGRAM_NAMES = frozenset({"tensorflow.histogram_fixed_width"})


def xla_twin_fix(ctx: FileContext, node: cst.Call, qualnames: frozenset[str]) -> NodeFix | None:
    """The rewrite of call `node` (of the op `qualnames` names) with ops XLA compiles, or
    None when there is none for this op or this spelling of the call."""
    if not qualnames or not qualnames <= _HISTOGRAM_NAMES:
        return None
    if any(a.star for a in node.args):
        return None
    bound = bind_call(_HISTOGRAM, node)
    args = bound.arguments
    values, value_range = args.get("values"), args.get("value_range")
    nbins = args.get("nbins")
    unclear = bound.missing or bound.extra_positional or bound.extra_keywords
    if values is None or value_range is None or "name" in args or unclear:
        return None
    if type(values) not in (cst.Name, cst.Attribute):
        return None  # read twice: only what reading twice cannot change
    if nbins is not None and type(nbins) not in (cst.Name, cst.Integer):
        return None
    tf, imported = ctx.import_name("tensorflow", "tf")
    code = ctx.module.code_for_node
    count = code(nbins) if nbins is not None else "100"
    dtype = code(args["dtype"]) if "dtype" in args else f"{tf}.int32"
    parts = (code(values), code(value_range))
    if any("\n" in part or "\r" in part for part in parts):
        return None
    text = (
        f"{tf}.math.unsorted_segment_sum({tf}.ones_like({parts[0]}, dtype={dtype}), "
        f"{tf}.histogram_fixed_width_bins({parts[0]}, {parts[1]}, nbins={count}), {count})"
    )
    return NodeFix(
        "unsafe",
        "count the bins with ops XLA compiles: `tf.histogram_fixed_width_bins` and "
        "`tf.math.unsorted_segment_sum`",
        ((node, text),),
        (imported,) if imported else (),
    )
