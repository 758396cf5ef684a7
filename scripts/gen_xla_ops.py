"""Generate jitlint's XLA op table for JIT203 from the installed TensorFlow.

Needs TensorFlow (the linter itself never imports it). Two sources, both from TF itself:

1. `tensorflow.python.util.pywrap_xla_ops.get_{cpu,gpu}_kernel_names()`: the TF op types that
   have an XLA kernel.
2. The op types each Python API creates, found by tracing the API once inside a
   `tf.function` whose inputs are placeholders (not constants, so nothing is constant-folded).

An API is unsupported under XLA when one of its op types has no XLA kernel. APIs whose ops all
have kernels but produce data-dependent shapes are listed separately (they compile on XLA CPU
in recent TF but not on every backend).

3. What the Python APIs the TF model asks about return (`outputs`): one `tensor`, a Python
   `list` of tensors (its length static: `tf.unstack`, `tf.split`), a `tuple` (`tf.nn.moments`)
   or something else, seen by calling each once inside a `tf.function` on placeholders. The op
   registry cannot say it: an API is a Python wrapper around one or many ops, and its
   structure is the wrapper's (`tf.meshgrid` builds its list from single-output ops; a
   `number_attr` output is a list only when the wrapper hands the list back). The probed
   APIs are the ones in OUTPUT_PROBES, under each namespace of OUTPUT_NAMESPACES that has
   one, and every `reduce_*` function there.

Usage: python scripts/gen_xla_ops.py [OUTPUT]   (default: jitlint/data/xla_ops_tf<ver>.json)
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf
from tensorflow.python.util import pywrap_xla_ops

# Op types that are graph plumbing, not computation: XLA handles them without a kernel entry.
PLUMBING = {"Placeholder", "NoOp", "_Arg", "_Retval"}
# Ops with XLA kernels whose output shape depends on input values.
DYNAMIC_SHAPE_OPS = {"Where", "Unique", "UniqueV2", "UniqueWithCounts", "ListDiff"}

F = tf.TensorSpec([4], tf.float32)
F2 = tf.TensorSpec([3, 3], tf.float32)
I = tf.TensorSpec([4], tf.int32)  # noqa: E741
I0 = tf.TensorSpec([], tf.int32)
S = tf.TensorSpec([2], tf.string)
S0 = tf.TensorSpec([], tf.string)
B = tf.TensorSpec([4], tf.bool)
IMG = tf.TensorSpec([1, 4, 4, 1], tf.float32)

# (API path under `tf.`, input specs, call). The call gets the placeholders positionally.
APIS: list[tuple[str, list[tf.TensorSpec], object]] = [
    # Python callbacks and printing
    ("py_function", [F], lambda a: tf.py_function(lambda t: t, [a], tf.float32)),
    ("numpy_function", [F], lambda a: tf.numpy_function(lambda t: t, [a], tf.float32)),
    ("print", [F], lambda a: tf.print(a)),
    ("strings.format", [F], lambda a: tf.strings.format("{}", a)),
    ("debugging.check_numerics", [F], lambda a: tf.debugging.check_numerics(a, "m")),
    ("debugging.assert_positive", [F], lambda a: tf.debugging.assert_positive(a)),
    # strings
    ("strings.as_string", [F], lambda a: tf.strings.as_string(a)),
    ("strings.to_number", [S], lambda s: tf.strings.to_number(s)),
    ("strings.length", [S], lambda s: tf.strings.length(s)),
    ("strings.join", [S], lambda s: tf.strings.join([s, s])),
    ("strings.reduce_join", [S], lambda s: tf.strings.reduce_join(s)),
    ("strings.split", [S], lambda s: tf.strings.split(s)),
    ("strings.regex_replace", [S], lambda s: tf.strings.regex_replace(s, "a", "b")),
    ("strings.regex_full_match", [S], lambda s: tf.strings.regex_full_match(s, "a")),
    ("strings.lower", [S], lambda s: tf.strings.lower(s)),
    ("strings.upper", [S], lambda s: tf.strings.upper(s)),
    ("strings.strip", [S], lambda s: tf.strings.strip(s)),
    ("strings.substr", [S], lambda s: tf.strings.substr(s, 0, 1)),
    ("strings.to_hash_bucket_fast", [S], lambda s: tf.strings.to_hash_bucket_fast(s, 10)),
    ("strings.unicode_decode", [S], lambda s: tf.strings.unicode_decode(s, "UTF-8")),
    ("strings.bytes_split", [S], lambda s: tf.strings.bytes_split(s)),
    # io and images
    ("io.read_file", [S0], lambda s: tf.io.read_file(s)),
    ("io.decode_png", [S0], lambda s: tf.io.decode_png(s)),
    ("io.decode_jpeg", [S0], lambda s: tf.io.decode_jpeg(s)),
    ("io.decode_raw", [S], lambda s: tf.io.decode_raw(s, tf.uint8)),
    ("io.serialize_tensor", [F], lambda a: tf.io.serialize_tensor(a)),
    ("io.parse_tensor", [S0], lambda s: tf.io.parse_tensor(s, tf.float32)),
    ("io.encode_base64", [S], lambda s: tf.io.encode_base64(s)),
    ("image.encode_png", [tf.TensorSpec([4, 4, 1], tf.uint8)], lambda a: tf.image.encode_png(a)),
    (
        "image.crop_and_resize",
        [IMG, tf.TensorSpec([1, 4], tf.float32)],
        lambda a, b: tf.image.crop_and_resize(a, b, [0], [2, 2]),
    ),
    (
        "image.non_max_suppression",
        [tf.TensorSpec([4, 4], tf.float32), F],
        lambda b, s: tf.image.non_max_suppression(b, s, 2),
    ),
    # segments, histograms, sets
    ("math.segment_sum", [F, I], lambda a, i: tf.math.segment_sum(a, i)),
    ("math.segment_mean", [F, I], lambda a, i: tf.math.segment_mean(a, i)),
    ("math.segment_max", [F, I], lambda a, i: tf.math.segment_max(a, i)),
    ("math.segment_min", [F, I], lambda a, i: tf.math.segment_min(a, i)),
    ("math.segment_prod", [F, I], lambda a, i: tf.math.segment_prod(a, i)),
    ("math.unsorted_segment_sum", [F, I], lambda a, i: tf.math.unsorted_segment_sum(a, i, 4)),
    ("sparse.segment_sum", [F, I], lambda a, i: tf.sparse.segment_sum(a, i, i)),
    ("sparse.segment_mean", [F, I], lambda a, i: tf.sparse.segment_mean(a, i, i)),
    ("math.bincount", [I], lambda i: tf.math.bincount(i)),
    (
        "histogram_fixed_width",
        [F],
        lambda a: tf.histogram_fixed_width(a, [0.0, 1.0], nbins=3),
    ),
    ("unravel_index", [I, tf.TensorSpec([2], tf.int32)], lambda i, d: tf.unravel_index(i, d)),
    # linear algebra
    ("linalg.slogdet", [F2], lambda m: tf.linalg.slogdet(m)),
    ("linalg.eig", [F2], lambda m: tf.linalg.eig(m)),
    ("linalg.eigvals", [F2], lambda m: tf.linalg.eigvals(m)),
    ("linalg.eigh", [F2], lambda m: tf.linalg.eigh(m)),
    ("linalg.det", [F2], lambda m: tf.linalg.det(m)),
    ("linalg.inv", [F2], lambda m: tf.linalg.inv(m)),
    ("linalg.cholesky", [F2], lambda m: tf.linalg.cholesky(m)),
    ("linalg.svd", [F2], lambda m: tf.linalg.svd(m)),
    ("linalg.qr", [F2], lambda m: tf.linalg.qr(m)),
    ("linalg.logm", [tf.TensorSpec([3, 3], tf.complex64)], lambda m: tf.linalg.logm(m)),
    # random
    ("random.gamma", [], lambda: tf.random.gamma([3], 1.0)),
    ("random.poisson", [], lambda: tf.random.poisson([3], 1.0)),
    ("random.uniform", [], lambda: tf.random.uniform([3])),
    ("random.normal", [], lambda: tf.random.normal([3])),
    ("random.shuffle", [F], lambda a: tf.random.shuffle(a)),
    ("random.categorical", [F2], lambda m: tf.random.categorical(m, 2)),
    # dynamic output shapes
    ("unique", [F], lambda a: tf.unique(a)[0]),
    ("unique_with_counts", [F], lambda a: tf.unique_with_counts(a)[0]),
    ("where", [B], lambda b: tf.where(b)),
    ("boolean_mask", [F, B], lambda a, b: tf.boolean_mask(a, b)),
    ("sets.difference", [tf.TensorSpec([1, 4], tf.int32)], lambda i: tf.sets.difference(i, i)),
    # morphology, pooling and image ops used in Keras layers
    (
        "nn.dilation2d",
        [IMG, tf.TensorSpec([3, 3, 1], tf.float32)],
        lambda a, k: tf.nn.dilation2d(a, k, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
    ),
    (
        "nn.erosion2d",
        [IMG, tf.TensorSpec([3, 3, 1], tf.float32)],
        lambda a, k: tf.nn.erosion2d(a, k, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
    ),
    ("nn.max_pool_with_argmax", [IMG], lambda a: tf.nn.max_pool_with_argmax(a, 2, 2, "SAME")),
    ("nn.fractional_max_pool", [IMG], lambda a: tf.nn.fractional_max_pool(a, [1.0, 1.5, 1.5, 1.0])),
    (
        "image.draw_bounding_boxes",
        [IMG, tf.TensorSpec([1, 1, 4], tf.float32)],
        lambda a, b: tf.image.draw_bounding_boxes(a, b, [[1.0, 0.0, 0.0, 1.0]]),
    ),
    (
        "image.extract_patches",
        [IMG],
        lambda a: tf.image.extract_patches(a, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    ),
    ("image.rgb_to_hsv", [tf.TensorSpec([4, 4, 3], tf.float32)], lambda a: tf.image.rgb_to_hsv(a)),
    (
        "image.adjust_hue",
        [tf.TensorSpec([4, 4, 3], tf.float32)],
        lambda a: tf.image.adjust_hue(a, 0.1),
    ),
    (
        "strings.to_hash_bucket_strong",
        [S],
        lambda s: tf.strings.to_hash_bucket_strong(s, 10, [1, 2]),
    ),
    ("strings.to_hash_bucket", [S], lambda s: tf.strings.to_hash_bucket(s, 10)),
    ("math.unsorted_segment_max", [F, I], lambda a, i: tf.math.unsorted_segment_max(a, i, 4)),
    (
        "nn.ctc_greedy_decoder",
        [tf.TensorSpec([4, 1, 3], tf.float32), tf.TensorSpec([1], tf.int32)],
        lambda a, n: tf.nn.ctc_greedy_decoder(a, n),
    ),
    # ragged and sparse
    ("ragged.range", [I], lambda i: tf.ragged.range(i)),
    (
        "ragged.boolean_mask",
        [F2, tf.TensorSpec([3, 3], tf.bool)],
        lambda a, b: tf.ragged.boolean_mask(a, b),
    ),
    (
        "sparse.to_dense",
        [tf.TensorSpec([2, 1], tf.int64), tf.TensorSpec([2], tf.float32)],
        lambda i, v: tf.sparse.to_dense(tf.sparse.SparseTensor(i, v, [4])),
    ),
    # common ops, all with kernels (listed so the table says so explicitly)
    ("exp", [F], lambda a: tf.exp(a)),
    ("matmul", [F2], lambda m: tf.matmul(m, m)),
    ("repeat", [F, I], lambda a, i: tf.repeat(a, i)),
    ("tile", [F, tf.TensorSpec([1], tf.int32)], lambda a, i: tf.tile(a, i)),
    ("reshape", [F], lambda a: tf.reshape(a, [2, 2])),
    ("gather", [F, I], lambda a, i: tf.gather(a, i)),
    ("searchsorted", [F, F], lambda a, b: tf.searchsorted(a, b)),
    ("sort", [F], lambda a: tf.sort(a)),
    ("math.top_k", [F], lambda a: tf.math.top_k(a, 2)),
    ("signal.rfft", [F], lambda a: tf.signal.rfft(a)),
    ("math.cumsum", [F], lambda a: tf.math.cumsum(a)),
    ("math.lgamma", [F], lambda a: tf.math.lgamma(a)),
    ("math.igamma", [F, F], lambda a, b: tf.math.igamma(a, b)),
    ("nn.softmax", [F], lambda a: tf.nn.softmax(a)),
    ("image.resize", [IMG], lambda a: tf.image.resize(a, [2, 2])),
    ("linalg.triangular_solve", [F2, F2], lambda a, b: tf.linalg.triangular_solve(a, b)),
]

# The APIs whose result structure is probed, by leaf name, each with a call given the function
# and the placeholders (float [4], float [3, 3], int32 [4], bool [4]).
Probe = Callable[..., object]
OUTPUT_PROBES: dict[str, Probe] = {
    "shape": lambda f, a, m, i, b: f(a),
    "reshape": lambda f, a, m, i, b: f(a, [2, 2]),
    "transpose": lambda f, a, m, i, b: f(m),
    "cast": lambda f, a, m, i, b: f(a, tf.int32),
    "concat": lambda f, a, m, i, b: f([a, a], 0),
    "stack": lambda f, a, m, i, b: f([a, a]),
    "squeeze": lambda f, a, m, i, b: f(m),
    "expand_dims": lambda f, a, m, i, b: f(a, 0),
    "matmul": lambda f, a, m, i, b: f(m, m),
    "zeros": lambda f, a, m, i, b: f([2]),
    "ones": lambda f, a, m, i, b: f([2]),
    "zeros_like": lambda f, a, m, i, b: f(a),
    "ones_like": lambda f, a, m, i, b: f(a),
    "fill": lambda f, a, m, i, b: f([2], 1.0),
    "range": lambda f, a, m, i, b: f(4),
    "constant": lambda f, a, m, i, b: f([1.0, 2.0]),
    "convert_to_tensor": lambda f, a, m, i, b: f(a),
    "identity": lambda f, a, m, i, b: f(a),
    "gather": lambda f, a, m, i, b: f(a, [0, 1]),
    "gather_nd": lambda f, a, m, i, b: f(m, [[0, 0]]),
    "tile": lambda f, a, m, i, b: f(a, [2]),
    "one_hot": lambda f, a, m, i, b: f(i, 3),
    "argmax": lambda f, a, m, i, b: f(a),
    "argmin": lambda f, a, m, i, b: f(a),
    "einsum": lambda f, a, m, i, b: f("ij,jk->ik", m, m),
    "reverse": lambda f, a, m, i, b: f(a, [0]),
    "slice": lambda f, a, m, i, b: f(a, [0], [2]),
    "pad": lambda f, a, m, i, b: f(a, [[1, 1]]),
    **{name: (lambda f, a, m, i, b: f(a)) for name in (
        "abs", "exp", "log", "sqrt", "square", "sigmoid", "tanh", "softmax", "relu", "cumsum",
        "sort", "argsort", "round", "floor",
    )},
    **{name: (lambda f, a, m, i, b: f(a, a)) for name in (
        "add", "multiply", "subtract", "divide", "maximum", "minimum",
    )},
    "clip_by_value": lambda f, a, m, i, b: f(a, 0.0, 1.0),
    "uniform": lambda f, a, m, i, b: f([2]),
    "normal": lambda f, a, m, i, b: f([2]),
    "broadcast_to": lambda f, a, m, i, b: f(a, [2, 4]),
    "boolean_mask": lambda f, a, m, i, b: f(a, b),
    "where": lambda f, a, m, i, b: f(b),
    "unstack": lambda f, a, m, i, b: f(m),
    "split": lambda f, a, m, i, b: f(a, 2),
    "meshgrid": lambda f, a, m, i, b: f(a, a),
    "dynamic_partition": lambda f, a, m, i, b: f(a, i, 2),
}  # fmt: skip
OUTPUT_NAMESPACES = ("", "math", "linalg", "nn", "random", "compat.v1")


def output_kind(call: Callable[..., object]) -> str | None:
    """What `call` returns inside a `tf.function` on placeholders; None when it fails."""
    found: list[str] = []

    def traced(a: object, m: object, i: object, b: object) -> None:
        result = call(a, m, i, b)
        if isinstance(result, tf.Tensor):
            found.append("tensor")
        elif type(result) is list and result and all(isinstance(r, tf.Tensor) for r in result):
            found.append("list")
        elif isinstance(result, tuple):
            found.append("tuple")
        else:
            found.append("other")

    specs = [F, F2, I, B]
    try:
        tf.function(traced, input_signature=specs, autograph=False).get_concrete_function()
    except Exception:
        return None
    return found[0] if found else None


def outputs() -> dict[str, str]:
    """Each probed API's public names -> what it returns."""
    found: dict[str, str] = {}
    for space in OUTPUT_NAMESPACES:
        module = resolve(space)
        reducers = {n for n in dir(module) if n.startswith("reduce_")}
        for leaf in sorted(set(OUTPUT_PROBES) | reducers):
            fn = getattr(module, leaf, None)
            if not callable(fn):
                continue
            probe = OUTPUT_PROBES.get(leaf)
            # A reducer without its own probe is given a float array, then a bool one.
            kinds = [
                output_kind(lambda a, m, i, b, fn=fn, probe=probe: probe(fn, a, m, i, b))
                if probe is not None
                else output_kind(lambda a, m, i, b, fn=fn, x=x: fn(b if x else a))
                for x in ((False,) if probe is not None else (False, True))
            ]
            kind = next((k for k in kinds if k is not None), None)
            if kind is not None:
                path = f"{space}.{leaf}" if space else leaf
                for name in aliases(path):
                    found[f"tensorflow.{name}"] = kind
    return dict(sorted(found.items()))


# Namespaces searched for other public spellings of the same function object.
ALIAS_NAMESPACES = (
    "",
    "math",
    "linalg",
    "strings",
    "io",
    "image",
    "random",
    "sparse",
    "nn",
    "debugging",
    "sets",
    "signal",
    "ragged",
    "dtypes",
    "compat.v1",
    "compat.v1.math",
    "compat.v1.io",
    "compat.v1.strings",
    "compat.v1.linalg",
    "compat.v1.random",
    "compat.v1.sparse",
)


def resolve(path: str) -> object:
    """The object at a dotted path under `tf` (`""` is `tf` itself)."""
    obj: object = tf
    for part in path.split(".") if path else ():
        obj = getattr(obj, part)
    return obj


def op_types(specs: list[tf.TensorSpec], call: object) -> set[str]:
    """Every op type a traced call creates, including ops in nested functions (loop bodies)."""

    def traced(*args: object) -> None:
        call(*args)  # type: ignore[operator]  # outputs are not needed, only the graph

    concrete = tf.function(traced, input_signature=specs, autograph=False).get_concrete_function()
    graph = concrete.graph
    found = {op.type for op in graph.get_operations()}
    for fdef in graph.as_graph_def().library.function:
        found.update(node.op for node in fdef.node_def)
    return found


def aliases(path: str) -> list[str]:
    target = resolve(path)
    leaf = path.rsplit(".", 1)[-1]
    names = {path}
    for space in ALIAS_NAMESPACES:
        try:
            module = resolve(space)
        except AttributeError:
            continue
        for attr in {leaf, leaf.replace("_", "")}:
            if getattr(module, attr, None) is target:
                names.add(f"{space}.{attr}" if space else attr)
    return sorted(names)


def build() -> dict[str, object]:
    cpu = set(pywrap_xla_ops.get_cpu_kernel_names())
    gpu = set(pywrap_xla_ops.get_gpu_kernel_names())
    apis: dict[str, object] = {}
    for path, specs, call in APIS:
        ops = op_types(specs, call) - PLUMBING
        entry = {
            "ops": sorted(ops),
            "no_xla_kernel_cpu": sorted(ops - cpu),
            "no_xla_kernel_gpu": sorted(ops - gpu),
            "dynamic_shape": sorted(ops & DYNAMIC_SHAPE_OPS),
        }
        for name in aliases(path):
            apis[f"tensorflow.{name}"] = entry
    return {
        "generator": "scripts/gen_xla_ops.py",
        "tensorflow_version": tf.__version__,
        "xla_kernels": {"cpu": sorted(cpu), "gpu": sorted(gpu)},
        "dynamic_shape_ops": sorted(DYNAMIC_SHAPE_OPS),
        "apis": dict(sorted(apis.items())),
        "outputs": outputs(),
    }


def data_file(stem: str) -> Path:
    """Where a table generated for this TensorFlow minor version lives in the package."""
    version = ".".join(tf.__version__.split(".")[:2])
    return Path(__file__).resolve().parent.parent / "jitlint/data" / f"{stem}_tf{version}.json"


def write_table(build_table: Callable[[], dict[str, object]], stem: str, argv: list[str]) -> int:
    """Shared `main` of the TF table generators: build, write (to argv[0] if given), report."""
    out = Path(argv[0]) if argv else data_file(stem)
    out.write_text(json.dumps(build_table(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(write_table(build, "xla_ops", sys.argv[1:]))
