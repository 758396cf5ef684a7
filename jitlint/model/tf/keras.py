"""Keras in the TF model: which classes are layers or models, which Keras 3 runs without
autograph, and which belong to a model compiled with `jit_compile=True` in the same file.

A compile call links the class of its receiver (`self.compile` in a model, `m = Model()`),
or, for functional and Sequential models, the layer classes instantiated where the model is
built (and one level down, in model-building helpers called there); layers a linked model
creates in its own methods are linked too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from jitlint.model.tf.scan import GraphScan

KERAS_GRAPH_METHODS = {"call", "train_step", "test_step", "predict_step"}
Path = list[cst.CSTNode]


class KerasLinks:
    """Mixed into TfModel; uses its `names`, `module`, `_keras_kinds`, `resolve_function`."""

    names: Any
    module: cst.Module
    _keras_kinds: dict[int, str | None]

    def resolve_function(self, expr: Any, path: Any) -> Any:  # provided by TfModel
        raise NotImplementedError

    def keras_kind(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> str | None:
        """ "keras3" / "keras2" when `cls` is a Keras layer or model subclass, else None."""
        memo = self._keras_kinds
        if id(cls) in memo:
            return memo[id(cls)]
        memo[id(cls)] = None  # cycles
        found = None
        for base in cls.bases:
            for name in self.names.qualified_names(base.value, path):
                found = found or _keras_base(name)
            if found is None and type(base.value) is cst.Name:
                bindings = self.names.lookup(base.value.value, path)
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    local = bindings[0].node
                    if type(local) is cst.ClassDef:
                        found = self.keras_kind(local, path)
        memo[id(cls)] = found
        return found

    def _scan_class(self, scan: GraphScan, node: cst.ClassDef, parents: Path) -> None:
        methods = [
            s
            for s in node.body.body  # type: ignore[attr-defined]
            if type(s) is cst.FunctionDef and s.name.value in KERAS_GRAPH_METHODS
        ]
        if not methods:
            return
        kind = self.keras_kind(node, parents)
        if kind is None:
            return
        for method in methods:
            scan.keras_methods.append((node, method, kind, [*parents, node, node.body]))

    def _instantiated(self, scan: GraphScan, scope: cst.CSTNode) -> set[int]:
        """Local classes called (instantiated) directly in a function or the module body."""
        found: set[int] = set()
        for call, path in scan.calls.get(id(scope), ()):
            if type(call.func) is cst.Name:
                bindings = self.names.lookup(call.func.value, path)
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    found.add(id(bindings[0].node))
        return found

    def _jit_compiled_classes(self, scan: GraphScan) -> set[int]:
        """Keras classes whose model is compiled with `jit_compile=True` in this module."""
        linked: set[int] = set()
        for call, path in scan.compiles:
            receiver = call.func.value  # type: ignore[attr-defined]
            scope = next(
                (n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda)),
                self.module,
            )
            if type(receiver) is cst.Name and receiver.value == "self":
                cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
                if cls is not None:
                    linked.add(id(cls))
                continue
            linked |= self._instantiated(scan, scope)
            # One level down: model-building helpers called in the same scope.
            for inner, inner_path in scan.calls.get(id(scope), ()):
                target = self.resolve_function(inner.func, inner_path)
                if target is not None:
                    linked |= self._instantiated(scan, target[0])
        # Layers a linked model creates in its own methods belong to it too.
        classes = {id(c): c for c, _, _, _ in scan.keras_methods}
        pending = list(linked)
        while pending:
            cls = classes.get(pending.pop())
            if cls is None:
                continue
            for stmt in cls.body.body:  # type: ignore[attr-defined]
                if type(stmt) is cst.FunctionDef:
                    for found in self._instantiated(scan, stmt) - linked:
                        linked.add(found)
                        pending.append(found)
        return linked


def _keras_base(qualname: str) -> str | None:
    parts = qualname.split(".")
    if "keras" not in qualname or not parts[-1][:1].isupper():
        return None
    head = parts[0]
    if head == "tf_keras" or qualname.startswith("tensorflow.python.keras"):
        kind = "keras2"
    elif head in ("keras", "tensorflow"):
        kind = "keras3"
    else:
        return None
    leaf = parts[-1]
    layerish = "layers" in parts or leaf in ("Layer", "Model", "Sequential", "Functional")
    return kind if layerish or leaf.endswith(("Layer", "Model", "Cell")) else None
