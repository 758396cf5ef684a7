"""Where example inputs come from, in order: the user's EXAMPLES modules (read by the worker,
since they build arrays), specs recorded by the pytest plugin, jaxtyping-style annotations.

Recorded specs and annotation-derived examples use one JSON encoding, which the worker turns
into `jax.ShapeDtypeStruct` / `tf.TensorSpec` for compiling and into seeded random arrays for
running:

    1, 2.5, "s", true, null, [..]          as themselves (a JSON list is a Python list)
    {"__tuple__": [..]}                    a tuple
    {"__dict__": [[key, value], ..]}       a dict
    {"__spec__": {"shape": [..], "dtype": "float32", "framework": "jax"}}   an array
    {"__repr__": "..."}                    a value that could not be recorded
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import libcst as cst

DEFAULT_RECORD_FILE = ".jitlint/verify-specs.json"

# jaxtyping's dtype markers; the generic ones get JAX's default width.
_DTYPES = {
    "Float": "float32",
    "Float16": "float16",
    "BFloat16": "bfloat16",
    "Float32": "float32",
    "Float64": "float64",
    "Int": "int32",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt": "uint32",
    "UInt8": "uint8",
    "UInt32": "uint32",
    "Bool": "bool",
    "Complex": "complex64",
    "Complex64": "complex64",
    "Real": "float32",
    "Num": "float32",
    "Shaped": "float32",
    "Inexact": "float32",
    "Integer": "int32",
}
# Sizes for named dimensions, by first appearance: distinct, so a transposed use shows.
_SIZES = (3, 4, 5, 6, 7, 8, 9, 10)
_PYTHON = {"int": 2, "float": 0.5, "bool": True}


def load_recorded(path: Path | None) -> dict[str, list[dict[str, Any]]]:
    """The plugin's file: {"module:qualname": [{"args": [..], "kwargs": {..}}, ..]}."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    calls = data.get("calls") if isinstance(data, dict) else None
    return calls if isinstance(calls, dict) else {}


def _dims(text: str, sizes: dict[str, int]) -> list[int] | None:
    shape: list[int] = []
    for dim in text.split():
        if dim.isdigit():
            shape.append(int(dim))
        elif dim in ("...", "_") or dim.startswith("*"):
            continue  # any number of dimensions: none is the smallest honest choice
        else:
            name = dim.lstrip("#").split("=")[0]
            if not name.isidentifier():
                return None
            if name not in sizes:
                sizes[name] = _SIZES[len(sizes) % len(_SIZES)]
            shape.append(1 if dim.startswith("#") else sizes[name])
    return shape


def annotation_spec(code: str, sizes: dict[str, int]) -> Any | None:
    """`Float[Array, "b n"]` → an encoded spec; `int`/`float`/`bool` → a sample value."""
    if code in _PYTHON:
        return _PYTHON[code]
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return None
    if not isinstance(node, cst.Subscript) or len(node.slice) != 2:
        return None
    head = node.value
    marker = head.attr.value if isinstance(head, cst.Attribute) else getattr(head, "value", "")
    dtype = _DTYPES.get(marker)
    index = node.slice[1].slice
    if dtype is None or not isinstance(index, cst.Index):
        return None
    if not isinstance(index.value, cst.SimpleString):
        return None
    shape = _dims(str(index.value.evaluated_value), sizes)
    if shape is None:
        return None
    array = node.slice[0].slice
    array_code = cst.Module([]).code_for_node(array.value) if isinstance(array, cst.Index) else ""
    framework = "tensorflow" if "tf" in array_code.lower() else "jax"
    return {"__spec__": {"shape": shape, "dtype": dtype, "framework": framework}}


def from_annotations(params: list[tuple[str, str | None, bool]]) -> dict[str, Any] | str:
    """One example from the parameters' annotations, or the reason there is none.

    A parameter with a default and no usable annotation keeps its default; the parameters
    after it are then passed by keyword."""
    sizes: dict[str, int] = {}
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    skipped = False
    for name, code, has_default in params:
        if name in ("self", "cls"):
            return "methods are not supported"
        spec = annotation_spec(code, sizes) if code is not None else None
        if spec is None or (has_default and code in _PYTHON):  # a default beats a guess
            if has_default:
                skipped = True
                continue
            if code is None:
                return f"parameter `{name}` has no annotation"
            return f"the annotation of `{name}` (`{code}`) is not a jaxtyping array type"
        if skipped:
            kwargs[name] = spec
        else:
            args.append(spec)
    if not args and not kwargs:
        return "no parameter has a jaxtyping annotation"
    return {"args": args, "kwargs": kwargs}
