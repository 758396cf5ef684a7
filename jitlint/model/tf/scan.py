"""What one walk over a module finds about its graph code (TfModel builds it once)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jitlint.model.tf.function import GraphContext, TfFunction

Func = cst.FunctionDef | cst.Lambda
Path = list[cst.CSTNode]


@dataclass
class GraphScan:
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
    compiles: list[tuple[cst.Call, Path]] = field(default_factory=list)
    owner: dict[int, cst.CSTNode] = field(default_factory=dict)  # function -> enclosing scope
