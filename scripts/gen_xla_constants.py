"""Generate jitlint's table of TF API arguments that XLA needs as compile-time constants.

Needs TensorFlow (the linter itself never imports it). TensorFlow's Python does not expose the
XLA kernel registrations' compile-time-constant inputs, so they are probed: each API below is
called inside `tf.function(jit_compile=True)` once with every argument a constant (it must
compile), then once per numeric argument with that argument computed from a stateful random op
(same value, but never a compile-time constant). When XLA answers "Input N to node ... with
op OP must be a compile-time constant", the argument is one XLA needs constant; the op and its
input index come from that message. This also finds the implicit ones: `tf.math.bincount`'s
output size is `max(arr) + 1`, so `arr` itself must be constant.

A function argument or a `tf.Variable` read in that position compiles (XLA compiles once per
value, hazards T03); only values computed inside the compiled function fail.

Each constant argument that takes non-negative integers is probed once more with a bounded
dynamic size (the size of a `tf.boolean_mask` result, same value): XLA's value inference
accepts an upper bound there for some arguments (`tf.tile`'s multiples) and not for others
(`tf.one_hot`'s depth). An error about the shapes the bound gives still counts as taken: the
probe's other arguments are not sized for the bound.

Usage: python scripts/gen_xla_constants.py [OUTPUT]
       (default: jitlint/data/xla_constants_tf<ver>.json)
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_xla_ops import aliases, resolve, write_table  # after the path is set

I64 = tf.constant([1, 2, 2, 3], tf.int64)
X = [1.0, 2.0, 3.0, 4.0]
M = [[1.0, 2.0], [3.0, 4.0]]
IMG = tf.ones([1, 4, 4, 1])
IMG3 = tf.ones([4, 4, 1])

# (API path under `tf.`, example arguments by keyword). Every argument must give a valid
# call; sizes and axes are not 0, which the bounded probe would keep exact.
APIS: list[tuple[str, dict[str, object]]] = [
    # shapes of new tensors
    ("zeros", {"shape": [2, 3]}),
    ("ones", {"shape": [2, 3]}),
    ("fill", {"dims": [2, 3], "value": 1.0}),
    ("eye", {"num_rows": 3, "num_columns": 2}),
    ("range", {"start": 0, "limit": 6, "delta": 2}),
    ("linspace", {"start": 0.0, "stop": 1.0, "num": 3}),
    ("random.uniform", {"shape": [2, 3]}),
    ("random.normal", {"shape": [2, 3]}),
    ("random.truncated_normal", {"shape": [2, 3]}),
    ("random.stateless_uniform", {"shape": [2, 3], "seed": [1, 2]}),
    ("random.stateless_normal", {"shape": [2, 3], "seed": [1, 2]}),
    ("random.categorical", {"logits": M, "num_samples": 2}),
    ("sequence_mask", {"lengths": [1, 2], "maxlen": 3}),
    ("scatter_nd", {"indices": [[0], [2]], "updates": [1.0, 2.0], "shape": [4]}),
    ("one_hot", {"indices": [0, 2], "depth": 3}),
    # shapes of transformed tensors
    ("reshape", {"tensor": X, "shape": [2, 2]}),
    ("broadcast_to", {"input": [1.0, 2.0], "shape": [3, 2]}),
    ("tile", {"input": X, "multiples": [2]}),
    ("repeat", {"input": X, "repeats": [1, 2, 1, 2]}),
    ("pad", {"tensor": X, "paddings": [[0, 2]]}),
    ("slice", {"input_": X, "begin": [1], "size": [2]}),
    ("strided_slice", {"input_": X, "begin": [1], "end": [3], "strides": [1]}),
    ("transpose", {"a": M, "perm": [1, 0]}),
    ("reverse", {"tensor": M, "axis": [1]}),
    ("roll", {"input": M, "shift": 1, "axis": 1}),
    ("expand_dims", {"input": X, "axis": 1}),
    ("concat", {"values": [M, M], "axis": 1}),
    ("split", {"value": M, "num_or_size_splits": [1, 1], "axis": 1}),
    ("gather", {"params": M, "indices": [1, 0], "axis": 1}),
    ("linalg.band_part", {"input": M, "num_lower": 0, "num_upper": 1}),
    ("image.resize", {"images": IMG, "size": [2, 2]}),
    (
        "image.pad_to_bounding_box",
        {
            "image": IMG3,
            "offset_height": 1,
            "offset_width": 1,
            "target_height": 6,
            "target_width": 6,
        },
    ),
    (
        "image.crop_to_bounding_box",
        {
            "image": IMG3,
            "offset_height": 1,
            "offset_width": 1,
            "target_height": 2,
            "target_width": 2,
        },
    ),
    ("image.resize_with_crop_or_pad", {"image": IMG3, "target_height": 2, "target_width": 6}),
    ("image.random_crop", {"value": IMG3, "size": [2, 2, 1]}),
    ("image.resize_with_pad", {"image": IMG3, "target_height": 2, "target_width": 6}),
    (
        "nn.conv2d_transpose",
        {
            "input": IMG,
            "filters": tf.ones([2, 2, 1, 1]),
            "output_shape": [1, 8, 8, 1],
            "strides": 2,
        },
    ),
    ("space_to_batch", {"input": IMG, "block_shape": [2, 2], "paddings": [[0, 0], [0, 0]]}),
    ("signal.stft", {"signals": tf.ones([8]), "frame_length": 4, "frame_step": 2}),
    ("signal.frame", {"signal": X, "frame_length": 2, "frame_step": 1}),
    ("signal.rfft", {"input_tensor": X, "fft_length": [4]}),
    ("signal.irfft", {"input_tensor": tf.complex(M, M), "fft_length": [2]}),
    ("signal.rfft2d", {"input_tensor": M, "fft_length": [2, 2]}),
    ("signal.irfft2d", {"input_tensor": tf.complex(M, M), "fft_length": [2, 2]}),
    # axes
    ("reduce_sum", {"input_tensor": M, "axis": 1}),
    ("reduce_mean", {"input_tensor": M, "axis": 1}),
    ("reduce_max", {"input_tensor": M, "axis": 1}),
    ("reduce_min", {"input_tensor": M, "axis": 1}),
    ("reduce_prod", {"input_tensor": M, "axis": 1}),
    ("reduce_logsumexp", {"input_tensor": M, "axis": 1}),
    ("reduce_any", {"input_tensor": [[True, False]], "axis": 1}),
    ("reduce_all", {"input_tensor": [[True, False]], "axis": 1}),
    ("nn.moments", {"x": tf.constant(M), "axes": [1]}),
    ("math.reduce_std", {"input_tensor": M, "axis": 1}),
    ("math.reduce_variance", {"input_tensor": M, "axis": 1}),
    ("math.cumsum", {"x": M, "axis": 1}),
    ("math.cumprod", {"x": M, "axis": 1}),
    ("argmax", {"input": M, "axis": 1}),
    ("argmin", {"input": M, "axis": 1}),
    ("norm", {"tensor": M, "axis": 1}),
    # sizes of results
    ("math.top_k", {"input": X, "k": 2}),
    ("math.in_top_k", {"targets": [0, 1], "predictions": M, "k": 1}),
    ("math.bincount", {"arr": [1, 2, 2], "minlength": 4, "maxlength": 4}),
    ("math.unsorted_segment_sum", {"data": X, "segment_ids": [0, 1, 0, 1], "num_segments": 2}),
    ("math.unsorted_segment_max", {"data": X, "segment_ids": [0, 1, 0, 1], "num_segments": 2}),
    ("math.unsorted_segment_min", {"data": X, "segment_ids": [0, 1, 0, 1], "num_segments": 2}),
    ("math.unsorted_segment_prod", {"data": X, "segment_ids": [0, 1, 0, 1], "num_segments": 2}),
    ("math.unsorted_segment_mean", {"data": X, "segment_ids": [0, 1, 0, 1], "num_segments": 2}),
    ("histogram_fixed_width", {"values": X, "value_range": [0.0, 4.0], "nbins": 3}),
    ("math.confusion_matrix", {"labels": [0, 1], "predictions": [1, 1], "num_classes": 3}),
    ("unstack", {"value": M, "num": 2}),
]

_CONSTANT = re.compile(r"Input (\d+) to node `[^`]*` with op (\w+) must be a compile-time constant")


def _from_rng(value: object) -> tf.Tensor:
    """`value`, computed from a stateful random op: never a compile-time constant."""
    const = tf.constant(value)
    shape = tf.shape(const)
    if const.dtype.is_integer:
        return const + tf.random.uniform(shape, 0, 1, dtype=const.dtype)
    return const + tf.cast(0.0 * tf.random.uniform(shape), const.dtype)


def _bounded_maker(value: object) -> Callable[[object], tf.Tensor] | None:
    """A maker of `value` as the sizes of `tf.boolean_mask` results: bounded dynamic sizes,
    each one below its bound (XLA sees the bound, not the value); zeros stay constants. None
    when `value` is not made of non-negative integers."""
    const = tf.constant(value)
    if not const.dtype.is_integer:
        return None
    numbers = const.numpy().reshape(-1).tolist()
    if any(n < 0 for n in numbers):
        return None
    shape = const.shape.as_list()

    def size(n: int) -> tf.Tensor:
        if n == 0:
            return tf.constant(0, const.dtype)  # a zero stays exact (`paddings=[[0, k]]`)
        # n kept of n + 1: the last is always dropped, so the size is n, bounded by n + 1.
        mask = tf.concat([tf.random.uniform([n]) < 2.0, [False]], axis=0)
        kept = tf.boolean_mask(tf.ones([n + 1]), mask)
        return tf.cast(tf.shape(kept)[0], const.dtype)

    def make(_: object) -> tf.Tensor:
        if not shape:
            return size(numbers[0])
        return tf.reshape(tf.stack([size(n) for n in numbers]), shape)

    return make


def _total(out: object) -> tf.Tensor:
    """One float32 scalar from every tensor a call returns."""
    parts = [tf.constant(0.0)]
    for tensor in tf.nest.flatten(out):
        if tensor.dtype.is_complex:
            tensor = tf.math.real(tensor)
        if tensor.dtype.is_floating or tensor.dtype.is_integer or tensor.dtype.is_bool:
            parts.append(tf.reduce_sum(tf.cast(tensor, tf.float32)))
    return tf.add_n(parts)


def _probe(
    api: Callable[..., object], kwargs: dict[str, object], name: str, how: str
) -> str | None:
    """None when the call compiles with `kwargs[name]` made `how`: "rng" (from a stateful
    random op), "loop" (from a loop-carried variable of a `tf.while_loop`), "bounded" (a
    bounded dynamic size); the error otherwise. No `name`: every argument constant."""

    def call(replacement: object = None) -> object:
        args = dict(kwargs)
        if name:
            args[name] = replacement
        return api(**args)

    bounded = _bounded_maker(kwargs[name]) if how == "bounded" else None  # eager: reads it

    def compiled() -> object:
        if not name:
            return _total(call())
        if how == "rng":
            return _total(call(_from_rng(kwargs[name])))
        if bounded is not None:
            return _total(call(bounded(None)))
        const = tf.constant(kwargs[name])

        def body(i: tf.Tensor, carried: tf.Tensor, acc: tf.Tensor) -> tuple[object, ...]:
            # `carried` changes each pass (by zero), so TF cannot treat it as loop-invariant.
            return i + 1, carried + tf.cast(i - i, carried.dtype), acc + _total(call(carried))

        start = (tf.constant(0), const, tf.constant(0.0))
        return tf.while_loop(lambda i, c, a: i < 2, body, start)[2]

    try:
        tf.function(compiled, jit_compile=True, autograph=False)()
    except Exception as error:  # any failure is an answer
        return f"{type(error).__name__}: {error}"
    return None


def _takes_a_bound(error: str | None) -> bool:
    """XLA took the bound of a bounded dynamic size as the argument's value: the call
    compiled, or failed later on the shapes the bound gave (`tf.reshape` to a bounded shape
    of more elements than the probe's input has), not for want of a constant."""
    if error is None:
        return True
    return _CONSTANT.search(error) is None and "has to be static" not in error


def _numeric(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float, tf.Tensor)):
        return True
    return isinstance(value, list) and all(_numeric(v) for v in value)


def probe_api(path: str, kwargs: dict[str, object]) -> list[dict[str, object]]:
    api: Callable[..., object] = resolve(path)  # type: ignore[assignment]
    baseline = _probe(api, kwargs, "", "")
    if baseline is not None:
        raise RuntimeError(f"tf.{path} with constants does not compile: {baseline}")
    positions = list(inspect.signature(api).parameters)
    found = []
    for name, value in kwargs.items():
        if not _numeric(value):
            continue
        errors = [_probe(api, kwargs, name, how) for how in ("rng", "loop")]
        match = next(filter(None, (_CONSTANT.search(e or "") for e in errors)), None)
        if match is None:
            continue  # compiles, or fails for another reason (a Python-only argument)
        bounded = _bounded_maker(value) is not None and _takes_a_bound(
            _probe(api, kwargs, name, "bounded")
        )
        found.append(
            {
                "param": name,
                "position": positions.index(name),
                "op": match.group(2),
                "input": int(match.group(1)),
                "bounded": bounded,
            }
        )
    return found


def build() -> dict[str, object]:
    apis: dict[str, object] = {}
    for path, kwargs in APIS:
        entry = probe_api(path, kwargs)
        for name in aliases(path):
            apis[f"tensorflow.{name}"] = entry
    return {
        "generator": "scripts/gen_xla_constants.py",
        "tensorflow_version": tf.__version__,
        "apis": dict(sorted(apis.items())),
    }


if __name__ == "__main__":
    raise SystemExit(write_table(build, "xla_constants", sys.argv[1:]))
