"""What one walk over a module finds about its graph code (TfModel builds it once)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jitlint.model.tf.function import GraphContext, TfFunction

Func = cst.FunctionDef | cst.Lambda
Path = list[cst.CSTNode]


@dataclass
class GraphScan:
    """What one walk of the module gathers for the graph model: roots, applications, calls."""

    roots: dict[int, tuple[Func, GraphContext]] = field(default_factory=dict)
    applications: list[tuple[TfFunction, Path]] = field(default_factory=list)
    # per function (or module): calls to names and `self.x` attributes, with their paths
    calls: dict[int, list[tuple[cst.Call, Path]]] = field(default_factory=dict)
    nested: dict[int, list[Func]] = field(default_factory=dict)
    callbacks: dict[int, list[tuple[Func, bool]]] = field(default_factory=dict)
    loop_bodies: set[int] = field(default_factory=set)
    keras_methods: list[tuple[cst.ClassDef, cst.FunctionDef, str, Path]] = field(
        default_factory=list
    )
    keras_classes: dict[int, Any] = field(default_factory=dict)  # id -> keras.KerasClass
    # `.compile(...)` calls (not of an imported module) with their literal `jit_compile`:
    # True / False, None when absent, "unknown" when not a literal.
    compiles: list[tuple[cst.Call, Path, bool | str | None]] = field(default_factory=list)
    # Functions (and the module) that build a Keras model: `Sequential(...)`, `Model(...)`.
    model_builds: dict[int, cst.CSTNode] = field(default_factory=dict)
    owner: dict[int, cst.CSTNode] = field(default_factory=dict)  # function -> enclosing scope
    owner_class: dict[int, cst.ClassDef] = field(default_factory=dict)  # method -> its class
    scopes: dict[int, cst.CSTNode] = field(default_factory=dict)  # every function, the module
    # The path from the module to each function and class (ending with it).
    def_paths: dict[int, tuple[cst.CSTNode, ...]] = field(default_factory=dict)
    loss_functions: set[int] = field(default_factory=set)  # given to compile(loss=...)
    # Calls of `name.attr(...)` whose receiver is not `self`/`cls` (maybe a module of the
    # project: `helpers.f(x)`), per scope, with their paths.
    attribute_calls: dict[int, list[tuple[cst.Call, Path]]] = field(default_factory=dict)
    widening: set[int] = field(default_factory=set)  # top-level defs that may cast/widen
    # `tf.constant(x)` / `convert_to_tensor(x)` calls with one argument (no dtype).
    constants: list[tuple[cst.Call, Path]] = field(default_factory=list)
    # Calls spelled `constant`, `convert_to_tensor`, `Variable`, `add` or `matmul` (`tf.x(...)`,
    # `x(...)`), any arguments: where the dtype model looks first.
    dtype_calls: list[tuple[cst.Call, Path]] = field(default_factory=list)
    # Calls of `f(...)` and `name.f(...)` in loop bodies and comprehensions.
    loop_calls: list[tuple[cst.Call, Path]] = field(default_factory=list)
    # Every call of the module with its path, in walk order (the dtype model's call sites).
    all_calls: list[tuple[cst.Call, tuple[cst.CSTNode, ...]]] = field(default_factory=list)
    # Graph callbacks (`tf.map_fn(f, x)`) and `compile(loss=f)` values that name no local
    # function: maybe functions of other modules.
    foreign_callbacks: dict[int, list[tuple[cst.CSTNode, Path]]] = field(default_factory=dict)
    foreign_losses: list[tuple[cst.CSTNode, Path, bool | str | None]] = field(default_factory=list)
