"""The `jit_compile` of a Keras `model.compile(...)`, as far as the source tells it.

- `True` / `False`: a literal, or a name every binding of which in its scope is that literal
  (`use_xla = False` ... `jit_compile=use_xla`); `None` is Keras' "no XLA" too;
- `None` (the value `compile_flag` returns): absent, or the literal `"auto"`: Keras 3's
  default, XLA where a GPU or TPU is present;
- `"unknown"`: anything else, a value chosen at run time (`jit_compile=use_xla`, read from an
  environment variable, a config, a command-line flag). The model is then compiled with XLA
  in the runs where that value is true: a "switch" (keras.py), reported like "auto", as
  warnings, since this is the configuration the project itself offers.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.python.names import Names

UNKNOWN = "unknown"
# The words a graph context's origin uses for a model compiled with a run-time `jit_compile`;
# rules tell such a context from Keras' "auto" by them (`xla_when`).
SWITCH_ORIGIN = "a Keras model compiled with a `jit_compile` chosen at run time"
_SWITCH_WHEN = "the model is compiled with XLA in every run where that `jit_compile` value is true"
_AUTO_WHEN = (
    "Keras 3 compiles it with XLA where a GPU or TPU is present (the default "
    '`jit_compile="auto"`), and not on a CPU-only machine'
)


def compile_flag(
    names: Names, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]
) -> bool | str | None:
    """What `jit_compile=expr` of a `compile(...)` call at the end of `path` asks for."""
    literal = _literal(expr)
    if literal != UNKNOWN:
        return literal
    if type(expr) is not cst.Name:
        return UNKNOWN
    bindings = names.lookup(expr.value, path)
    if not bindings or any(b.kind != "assign" or b.node is None for b in bindings):
        return UNKNOWN
    values = {_literal(b.node) for b in bindings}  # type: ignore[arg-type]
    if len(values) == 1 and next(iter(values)) in (True, False):
        return next(iter(values))
    return UNKNOWN


def _literal(expr: cst.BaseExpression) -> bool | str | None:
    if type(expr) is cst.Name and expr.value in ("True", "False", "None"):
        return expr.value == "True"
    if type(expr) is cst.SimpleString and expr.evaluated_value == "auto":
        return None
    return UNKNOWN


def xla_when(origin: str) -> str:
    """When XLA compiles code of a context that is neither always XLA nor never (its
    `auto_xla`): where a GPU is (Keras' "auto"), or where a run-time `jit_compile` is true."""
    return _SWITCH_WHEN if SWITCH_ORIGIN in origin else _AUTO_WHEN
