"""Keras in the TF model: which classes are layers, models, losses or metrics, which of their
methods run as graph code, and whether a model that runs them compiles with XLA.

A class is a Keras class when a base is one: a Keras base, a Keras class of the module, or
one of another module of the run (its file exports the fact, `keras_exports`, to the modules
that subclass it).

Keras 3 runs `Layer.call`, `Model.train_step`/`test_step`/`predict_step`, `Loss.call` and
`Metric.update_state` inside the traced train/test/predict functions of `fit`, `evaluate`
and `predict`, without autograph. Whether that function is compiled with XLA is the
model's `jit_compile`:

- `compile(jit_compile=True)`: always XLA;
- `compile(jit_compile=False)`: never;
- left at the default `"auto"` (Keras 3): XLA when a GPU or TPU is present, unless a layer
  sets `supports_jit = False`; never on a CPU-only machine (keras `_resolve_auto_jit_compile`,
  hazards T19). Keras 2 (`tf_keras`) has no "auto": its default is no XLA.

A class gets the statuses of the places it is used (`uses`):
- "xla"/"auto"/"off": created where a model is compiled with `jit_compile=True`/default/
  `False` (the compiled class itself for `self.compile`, or the classes created in the scope
  of the `compile` call and one level down in model-building helpers called there), passed
  to `compile(loss=..., metrics=...)`, or created in the methods of a class with that
  status (sublayers); "switch" likewise, with a `jit_compile` chosen at run time
  (compile_flag.py): XLA in the runs where it is true, reported like "auto";
- "model": created where a Keras model is built (`Sequential`, `Model(inputs, outputs)`) but
  no compile is seen: the model is compiled elsewhere, or only predicts, i.e. "auto";
- "plain": created somewhere else (a custom training loop, eager use): not "auto";
- "eager": created where a model is compiled with `run_eagerly=True` (or passed to that
  `compile`): Keras runs its steps as plain Python; a class used only so runs no graph code.
A class whose every instance the run follows (model/domain/instances.py) to calls, weight
reads and tests only (`instances_called_directly`; other files' instances come as "inst" and
"hand" records) runs its methods where they are called: TfModel makes them roots only when
a call is graph code. A backup copy's classes (engine/orphans.py) used nowhere are none,
nor are the classes whose constructor calls `tf.config.run_functions_eagerly(True)`.
Explicit statuses win; then "model"; a class used nowhere (in this file and, in a project
run, in any other file: `uses` includes what other files report) is a library class that
Keras models will run at their default, "auto" (except a metric: its `update_state` is graph
code only where a model is seen to run it). Classes created in graph code run in that
graph code's context (propagated by TfModel).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import libcst as cst

from jitlint.model.domain.instances import Reads, follow_instances, parameter_names
from jitlint.model.library.keras_evidence import keras_3_code
from jitlint.model.tf.api import (
    KERAS_3_SEEDED_LAYERS,
    KERAS_STATELESS_LAYERS,
    RUN_FUNCTIONS_EAGERLY,
    VARIABLE_CONSTRUCTORS,
    WEIGHT_MAKERS,
)
from jitlint.model.tf.compile_flag import SWITCH_ORIGIN, UNKNOWN
from jitlint.model.tf.function import GraphContext
from jitlint.model.tf.scan import GraphScan
from jitlint.model.tf_records import (
    COPY_KIND,
    INSTANCES_CALLED,
    INSTANCES_HANDED,
    KERAS_BASES_FACT,
    KERAS_CLASS_FACT,
    ImportedFacts,
    TfInbound,
)
from jitlint.python.attributes import is_super_init
from jitlint.python.names import leaf_name
from jitlint.python.walker import iter_children

Path = list[cst.CSTNode]

# The methods Keras runs as graph code, per kind of class, and how many parameters after
# `self` are tensors.
GRAPH_METHODS: dict[str, dict[str, int]] = {
    "layer": {
        "call": 1,
        "train_step": 1,
        "test_step": 1,
        "predict_step": 1,
        "compute_loss": 3,
    },
    "loss": {"call": 2},
    "metric": {"update_state": 2, "result": 0},
}
# `build` is not here: Keras 3 builds a model before it traces the train step (`fit` calls
# `_symbolic_build` first), so weights and NumPy there are fine.
NOT_COMPILED: set[str] = set()
KERAS_GRAPH_METHODS = {name for methods in GRAPH_METHODS.values() for name in methods}
MODEL_BUILDERS = frozenset(
    f"{prefix}.{leaf}"
    for prefix in (
        "keras",
        "keras.models",
        "tensorflow.keras",
        "tensorflow.keras.models",
        "tf_keras",
        "tf_keras.models",
    )
    for leaf in ("Sequential", "Model", "Functional")
)
EXPLICIT = ("xla", "auto", "switch", "off")


def keras_3_imported(source: str) -> bool:
    """The file uses a Keras-3-only module (`keras.ops`, `from keras import ops`, ...: the
    table in model/library/keras_evidence.py)."""
    return keras_3_code(source) is not None


# The kinds of Keras classes: of Keras 3, of Keras 2, or of a `keras`/`tf.keras` whose major
# the project leaves undecided (only what holds under both is assumed of those).
KERAS_3, KERAS_2, KERAS_EITHER = "keras3", "keras2", "keras2or3"


_CLASS_NAME = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.M)


@dataclass(frozen=True)
class KerasClass:
    """A Keras class of the file: its Keras major and category."""

    node: cst.ClassDef
    kind: str  # KERAS_3 / KERAS_2 / KERAS_EITHER
    category: str  # "layer" / "loss" / "metric"
    path: tuple[cst.CSTNode, ...]  # to the class statement (its scope)


@dataclass(frozen=True)
class Status:
    """How a Keras class's compiled methods run."""

    xla: bool  # always compiled with XLA
    auto: bool  # compiled with XLA where a GPU/TPU is present (jit_compile="auto")
    where: str  # for messages
    switch: bool = False  # `auto` only through a `jit_compile` chosen at run time


class KerasLinks:
    """Mixed into TfModel; uses its `names`, `module`, `_keras_kinds`, `resolve_function`."""

    names: Any
    module: cst.Module
    _keras_kinds: dict[int, tuple[str, str] | None]
    keras_major: int | None  # the Keras the file targets (None: undecided), TfModel's
    facts: ImportedFacts  # facts of imported names (TfModel), Keras classes' among them

    def records(self, *kinds: str) -> list[TfInbound]:  # provided by TfModel
        raise NotImplementedError

    def uses_received(self, names: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        raise NotImplementedError  # provided by TfModel

    def resolve_function(self, expr: Any, path: Any) -> Any:  # provided by TfModel
        raise NotImplementedError

    def scope_path(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:  # provided by TfModel
        raise NotImplementedError

    # ----- what a class is ----------------------------------------------------------------

    def keras_kind(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> str | None:
        """ "keras3" / "keras2" when `cls` is a Keras layer, model, loss or metric."""
        found = self.keras_class_kind(cls, path)
        return found[0] if found else None

    def keras_class_kind(
        self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]
    ) -> tuple[str, str] | None:
        """(kind, category) of a Keras subclass: ("keras3", "layer"), ...; else None."""
        memo = self._keras_kinds
        if id(cls) in memo:
            return memo[id(cls)]
        memo[id(cls)] = None  # cycles
        found = None
        facts = self.facts
        for base in cls.bases:
            if found is not None:
                break
            # Every meaning of the base, not the first a set happens to give: with
            # `try: import tf_keras as keras` / `except ImportError: from tensorflow import
            # keras`, one base is both a Keras 2 and a Keras 3 layer.
            kinds: set[tuple[str, str] | None] = set()
            for name in self.names.qualified_names(base.value, path):
                kinds.add(keras_base(name, self.keras_major))
                # A Keras class of another module of the run (its file's export).
                kinds.add(_keras_fact(facts.get(name)))
            found = _surest_kind({kind for kind in kinds if kind is not None})
            if found is None and type(base.value) is cst.Name:
                bindings = self.names.lookup(base.value.value, path)
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    local = bindings[0].node
                    if type(local) is cst.ClassDef:
                        found = self.keras_class_kind(local, path)
        memo[id(cls)] = found
        return found

    def keras_exports(self) -> dict[str, str]:
        """The module's top-level Keras classes, for the modules subclassing them: name ->
        `keras:<kind>:<category>`."""
        out = {}
        module = self.module
        for stmt in module.body:
            if type(stmt) is cst.ClassDef and stmt.bases:
                found = self.keras_class_kind(stmt, [module])
                if found is not None:
                    out[stmt.name.value] = f"{KERAS_CLASS_FACT}{found[0]}:{found[1]}"
                    continue
                # Bases of other modules not known here: the runner follows them to the
                # modules that define them (model/project/files.py), so a chain of
                # subclasses across modules is known without a lint per step.
                imported = {
                    name
                    for base in stmt.bases
                    for name in self.names.qualified_names(base.value, [module])
                    if "." in name and name.split(".")[0] not in _LIBRARIES
                }
                # A subclass of a class above it whose bases are other modules' has those
                # bases too: it is a Keras class when they are, known without its own lint.
                for base in stmt.bases:
                    if type(base.value) is not cst.Name:
                        continue
                    local = out.get(base.value.value, "")
                    if local.startswith(KERAS_BASES_FACT):
                        imported.update(local[len(KERAS_BASES_FACT) :].split(","))
                if imported:
                    out[stmt.name.value] = KERAS_BASES_FACT + ",".join(sorted(imported))
        return out

    def base_names(self) -> frozenset[str]:
        """The names the module's class statements start their bases with (`Base`, `layers`
        in `layers.Base`): imports of those may be Keras classes of other modules."""
        found = set()
        stack: list[cst.CSTNode] = [self.module]
        while stack:
            node = stack.pop()
            if type(node) is cst.ClassDef:
                for base in node.bases:  # type: ignore[attr-defined]
                    head = base.value
                    while type(head) is cst.Attribute:
                        head = head.value
                    if type(head) is cst.Name:
                        found.add(head.value)
            if type(node) in _HOLDS_CLASSES:
                stack.extend(iter_children(node))
        return frozenset(found)

    def owns_state(self, cls: cst.ClassDef) -> bool:
        """A project Keras class that makes weights or sublayers: `self.add_weight(...)`,
        `tf.Variable(...)`, or an object of a class assigned or passed by keyword in it
        (`self.conv = Conv2D(...)`). A layer that owns no variable (`ZeroPadding2D`) gives
        its owner none."""
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [
            (cls, self.scope_path(cls)[:-1])
        ]
        while stack:
            node, above = stack.pop()
            here = (*above, node)
            kind = type(node)
            if kind is cst.Call:
                leaf = leaf_name(node.func)  # type: ignore[attr-defined]
                if leaf in WEIGHT_MAKERS:
                    return True
                if self.names.resolves_to(node.func, here, VARIABLE_CONSTRUCTORS):  # type: ignore[attr-defined]
                    return True
            elif kind in (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Arg):
                value = node.value  # type: ignore[attr-defined]
                if (
                    type(value) is cst.Call
                    and (kind is not cst.Arg or node.keyword is not None)  # type: ignore[attr-defined]
                    and leaf_name(value.func)[:1].isupper()
                    and leaf_name(value.func) not in KERAS_STATELESS_LAYERS
                ):
                    return True
            stack.extend((child, here) for child in iter_children(node))
        return False

    def _scan_class(self, scan: GraphScan, node: cst.ClassDef, parents: Path) -> None:
        found = self.keras_class_kind(node, parents)
        if found is None:
            return
        kind, category = found
        scan.keras_classes[id(node)] = KerasClass(node, kind, category, tuple(parents))
        methods = GRAPH_METHODS[category]
        for stmt in node.body.body:  # type: ignore[attr-defined]
            if type(stmt) is cst.FunctionDef and stmt.name.value in methods:
                scan.keras_methods.append((node, stmt, kind, [*parents, node, node.body]))

    # ----- where classes are used ---------------------------------------------------------

    @cached_property
    def _class_names(self) -> frozenset[str]:
        """The names the module's `class` statements bind, anywhere in it: a call of any
        other name instantiates no local class (a cheap test before resolving names)."""
        return frozenset(
            _CLASS_NAME.findall(self.module.code if self.source is None else self.source)
        )

    def _instantiated(self, scan: GraphScan, scope: cst.CSTNode) -> set[int]:
        """Local classes called (instantiated) directly in a function or the module body."""
        found: set[int] = set()
        class_names = self._class_names
        for call, path in scan.calls.get(id(scope), ()):
            if type(call.func) is cst.Name and call.func.value in class_names:
                bindings = self.names.lookup(call.func.value, path)
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    found.add(id(bindings[0].node))
        return found

    def _scopes_reached(self, scan: GraphScan, scope: cst.CSTNode) -> list[cst.CSTNode]:
        """`scope` and the local functions it calls (model-building helpers), one level."""
        scopes = [scope]
        for call, path in scan.calls.get(id(scope), ()):
            target = self.resolve_function(call.func, path)
            if target is not None and target[0] is not scope:
                scopes.append(target[0])
        return scopes

    @staticmethod
    def _scope_of(path: Sequence[cst.CSTNode], module: cst.CSTNode) -> cst.CSTNode:
        return next((n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda)), module)

    def class_uses(
        self, scan: GraphScan
    ) -> tuple[dict[int, list[tuple[str, str]]], list[tuple[cst.Call, Path, str]]]:
        """Per local Keras class, every (status, where) found in this file and received;
        and the calls in those places that may create classes of other modules (or call
        their model-building functions), with the status to send them."""
        uses: dict[int, list[tuple[str, str]]] = {}
        foreign: list[tuple[cst.Call, Path, str]] = []
        classes = scan.keras_classes
        # Per scope (a function or the module): the statuses of the models built there.
        scope_status: dict[int, list[tuple[str, str]]] = {}

        def note(scope: cst.CSTNode, status: str, where: str) -> None:
            entry = (status, where)
            known = scope_status.setdefault(id(scope), [])
            if entry not in known:
                known.append(entry)

        def add(found: Iterable[int], status: str, where: str) -> bool:
            changed = False
            for key in found:
                if key in classes and (status, where) not in uses.setdefault(key, []):
                    uses[key].append((status, where))
                    changed = True
            return changed

        compiled_scopes: set[int] = set()
        for call, path, flag in scan.compiles:
            status = "eager" if _runs_eagerly(call) else _compile_status(flag)
            receiver = call.func.value  # type: ignore[attr-defined]
            if type(receiver) is cst.Name and receiver.value == "self":
                cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
                if cls is not None:
                    add([id(cls)], status, "")
            else:
                scope = self._scope_of(path, self.module)
                compiled_scopes.add(id(scope))
                for reached in self._scopes_reached(scan, scope):
                    note(reached, status, "")
            for arg in call.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if keyword in ("loss", "metrics", "weighted_metrics"):
                    add(self._classes_in(arg.value, path), status, "")
                    foreign.extend((c, p, status) for c, p in self._calls_in(arg.value, path))
        # Other files' "use" records, read only for the names they can match here: a
        # model-building function (a top-level def) and a top-level Keras class.
        received_uses = self.uses_received(
            [stmt.name.value for stmt in self.module.body if type(stmt) is cst.FunctionDef]
            + [info.node.name.value for info in classes.values() if len(info.path) == 1]
        )
        for name, received in received_uses.items():
            for stmt in self.module.body:
                if type(stmt) is cst.FunctionDef and stmt.name.value == name:
                    for status, where in received:
                        for reached in self._scopes_reached(scan, stmt):
                            note(reached, status, where)
        for scope_id, scope in scan.model_builds.items():
            if scope_id not in compiled_scopes:
                note(scope, "model", "")
        for scope_id, scope in scan.scopes.items():
            if scope_id in scope_status:
                continue
            if type(scope) is cst.FunctionDef and self._is_method_of_keras_class(scan, scope):
                continue  # sublayers: below
            note(scope, "plain", "")
        for scope_id, statuses in scope_status.items():
            scope = scan.scopes[scope_id]
            created = self._instantiated(scan, scope)
            for status, where in statuses:
                add(created, status, where)
                foreign.extend(
                    (c, p, status) for c, p in self._foreign_creations(scan, scope, status)
                )
        for name, received in received_uses.items():
            for cls_id, info in classes.items():
                if info.node.name.value == name and len(info.path) == 1:
                    uses.setdefault(cls_id, []).extend(received)
        # Sublayers: classes created in a Keras class's methods share its status.
        changed = True
        while changed:
            changed = False
            for cls_id, info in classes.items():
                if eager_metric(info, uses.get(cls_id, [])):
                    continue
                status = self.status_of(info, uses.get(cls_id, []))
                inherited = _status_name(status)
                if inherited is None:
                    continue
                for stmt in info.node.body.body:  # type: ignore[attr-defined]
                    if type(stmt) is cst.FunctionDef:
                        inner = self._instantiated(scan, stmt) - {cls_id}
                        changed |= add(inner, inherited, status.where)
        for cls_id, info in classes.items():
            inherited = _status_name(self.status_of(info, uses.get(cls_id, []))) or "plain"
            for stmt in info.node.body.body:  # type: ignore[attr-defined]
                if type(stmt) is cst.FunctionDef:
                    foreign.extend(
                        (c, p, inherited) for c, p in self._foreign_creations(scan, stmt, inherited)
                    )
        return uses, foreign

    def _foreign_creations(
        self, scan: GraphScan, scope: cst.CSTNode, status: str, classes_only: bool = False
    ) -> list[tuple[cst.Call, Path]]:
        """Calls in `scope` of names imported from elsewhere: classes (capitalised) always;
        any function where a model is compiled (it may build the model)."""
        out = []
        calls = (*scan.calls.get(id(scope), ()), *scan.attribute_calls.get(id(scope), ()))
        for call, path in calls:
            func = call.func
            leaf = func.value if type(func) is cst.Name else func.attr.value  # type: ignore[attr-defined]
            if (classes_only or status in ("plain", "model")) and not leaf[:1].isupper():
                continue
            if type(func) is cst.Name:
                bindings = self.names.lookup(func.value, path)
                if not bindings or any(b.kind != "import" for b in bindings):
                    continue
            out.append((call, path))
        return out

    def _calls_in(
        self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> list[tuple[cst.Call, Path]]:
        """Calls of imported names in a `loss=`/`metrics=` value: `loss=FocalLoss()`."""
        out = []
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in (cst.List, cst.Tuple):
                stack.extend(e.value for e in node.elements)  # type: ignore[attr-defined]
            elif kind is cst.Dict:
                stack.extend(
                    e.value
                    for e in node.elements  # type: ignore[attr-defined]
                    if type(e) is cst.DictElement
                )
            elif kind is cst.Call and type(node.func) in (cst.Name, cst.Attribute):  # type: ignore[attr-defined]
                out.append((node, [*path, node]))  # type: ignore[list-item]
        return out

    def _is_method_of_keras_class(self, scan: GraphScan, func: cst.FunctionDef) -> bool:
        owner = scan.owner_class.get(id(func))
        return owner is not None and id(owner) in scan.keras_classes

    def _classes_in(self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> set[int]:
        """Local classes instantiated in a `loss=`/`metrics=` argument."""
        found: set[int] = set()
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in (cst.List, cst.Tuple):
                stack.extend(e.value for e in node.elements)  # type: ignore[attr-defined]
            elif kind is cst.Dict:
                stack.extend(
                    e.value
                    for e in node.elements  # type: ignore[attr-defined]
                    if type(e) is cst.DictElement
                )
            elif kind is cst.Call and type(node.func) is cst.Name:  # type: ignore[attr-defined]
                bindings = self.names.lookup(node.func.value, path)  # type: ignore[attr-defined]
                if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                    found.add(id(bindings[0].node))
        return found

    def status_of(self, info: KerasClass, uses: Sequence[tuple[str, str]]) -> Status:
        statuses = {status for status, _ in uses}
        where = next((w for s, w in uses if s == "xla"), "")
        explicit = statuses & set(EXPLICIT)
        switch = False
        if explicit:
            xla = "xla" in explicit
            auto = "auto" in explicit or "switch" in explicit
            switch = "auto" not in explicit
        elif "model" in statuses:
            xla, auto = False, True
        elif statuses:
            xla, auto = False, False  # created only outside Keras models
        else:
            xla, auto = False, True  # a library class: Keras models run it at "auto"
        if auto and not xla:
            where = next((w for s, w in uses if s == "auto"), "")
        if info.kind != KERAS_3 or self.opts_out_of_jit(info.node):
            auto = False  # "auto" is Keras 3's: not assumed where the major is undecided
            # Keras 3's `jit_compile` setter refuses True for a model holding such a layer
            # (`model_supports_jit`): it compiles without XLA, with a warning.
            xla = xla and (info.kind == KERAS_2 or not self.opts_out_of_jit(info.node))
        return Status(xla, auto and not xla, where, switch and auto and not xla)

    def opts_out_of_jit(self, cls: cst.ClassDef) -> bool:
        """`supports_jit = False` (class attribute or set in a method): Keras' "auto" then
        leaves the whole model without XLA; `jit_compile = False` likewise."""
        stack: list[cst.CSTNode] = [cls.body]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in (cst.Assign, cst.AnnAssign):
                targets = (
                    [t.target for t in node.targets]  # type: ignore[attr-defined]
                    if kind is cst.Assign
                    else [node.target]  # type: ignore[attr-defined]
                )
                value = node.value  # type: ignore[attr-defined]
                if type(value) is cst.Name and value.value == "False":
                    for target in targets:
                        leaf = (
                            target.attr.value
                            if type(target) is cst.Attribute
                            else getattr(target, "value", None)
                        )
                        if leaf in ("supports_jit", "jit_compile", "_supports_jit"):
                            return True
                continue
            if kind in (cst.ClassDef, cst.Lambda):
                continue
            stack.extend(iter_children(node))
        return False

    def turns_graphs_off(
        self, cls: cst.ClassDef, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> bool:
        """The class's constructor (its own `__init__`, or the one it inherits from, or
        calls as `super().__init__()`, of a class of the module) calls
        `tf.config.run_functions_eagerly(True)` on every path: once an
        instance exists, every `tf.function`, Keras' `fit`/`predict`/`evaluate` functions
        included, runs eagerly, so its `call` gets tensors with values (a wrapper around a
        model of another framework does this; observed on TF 2.21 / Keras 3.15). Or it
        passes `dynamic=True` to its base's constructor: Keras 2 then runs the layer, and
        any model holding it, eagerly (`run_eagerly` is forced on; observed on tf-keras
        2.21), and Keras 3 refuses the argument, so no graph of it is ever traced."""
        init = next(
            (
                stmt
                for stmt in cls.body.body  # type: ignore[attr-defined]
                if type(stmt) is cst.FunctionDef and stmt.name.value == "__init__"
            ),
            None,
        )
        if init is None:
            return self._base_turns_graphs_off(cls, path, depth)
        where = (*path, cls, cls.body, init, init.body)
        for stmt in init.body.body:  # type: ignore[attr-defined]
            if type(stmt) is not cst.SimpleStatementLine:
                continue  # a statement in a branch or a `try` may not run
            for small in stmt.body:
                call = small.value if type(small) is cst.Expr else None
                if type(call) is not cst.Call:
                    continue
                if (
                    len(call.args) == 1
                    and type(call.args[0].value) is cst.Name
                    and call.args[0].value.value == "True"
                    and self.names.resolves_to(call.func, where, RUN_FUNCTIONS_EAGERLY)
                ):
                    return True
                if is_super_init(call) and (
                    _passes_true(call, "dynamic") or self._base_turns_graphs_off(cls, path, depth)
                ):
                    return True
        return False

    def _base_turns_graphs_off(
        self, cls: cst.ClassDef, path: Sequence[cst.CSTNode], depth: int
    ) -> bool:
        """A base of `cls` that is a class of the module turns graphs off in its constructor."""
        if depth >= 3:
            return False
        return any(
            self.turns_graphs_off(base, path, depth + 1)
            for base in self.names.module_bases(cls, path)
        )

    @cached_property
    def backup_copies(self) -> frozenset[str]:
        """The top-level class names that the project pass says a module the run imports
        defines too, where no file of the run imports this one ("copy" records)."""
        return frozenset(record.function for record in self.records(COPY_KIND))

    def instances_called_directly(self, scan: GraphScan) -> dict[int, list[Path]]:
        """Local Keras layers and models whose every instance the project is seen to call
        (`model(x)`) and otherwise only to test or read the weights of: class id -> the
        paths of this module's calls. Keras runs `call` where it is called: when every call
        is eager code (TfModel checks this module's, each other module its own), the class
        runs no graph code (tensorflow/recommenders-addons' eager Keras demo, a module's
        self-test, a policy network trained under a plain `GradientTape`).

        Each instance is followed (model/domain/instances.py) from `name = Cls(...)` in any
        scope through names, the module's functions' parameters and returned values; an
        instance made in another module comes with that module's answer ("inst" records:
        model/project/tf_outbound.py), and one passed to a function of this module from
        another comes as a "hand" record and is followed from that parameter. Any use not
        followed (passed on elsewhere, `fit`/`predict`/`save`, `tf.function(model)`, a
        container, a subclass, a block builder calling it on its own input and returning
        the output, a module making symbolic `Input`s) keeps the class a graph root; so
        does one no module is seen to call (another module may import it). Known gap:
        another module that imports a module-level instance and runs it in graph code is
        not seen."""
        uses = self.keras_uses[0]
        candidates = {
            cls_id: info
            for cls_id, info in scan.keras_classes.items()
            if info.category == "layer"
            and uses.get(cls_id)
            and all(status == "plain" for status, _ in uses[cls_id])
        }
        if not candidates or self.makes_symbolic_inputs:
            return {}
        reads = self.instance_reads
        received = _received_instances(self.records("use", "inst", "hand"))
        out: dict[int, list[Path]] = {}
        for cls_id, info in candidates.items():
            name = info.node.name.value
            remote = received.get(name) or _Received()
            if not remote.accounted:
                continue  # another module makes one and does not say where it goes
            creations: list[list[cst.CSTNode]] | None = []
            for node, path in reads.of(name):
                bindings = self.names.lookup(name, path)
                if not bindings or bindings[0].node is not info.node or info.node in path:
                    continue  # another name, or its own methods (`super(Net, self)`)
                parent = path[-2]
                if type(parent) is not cst.Call or parent.func is not node:
                    creations = None  # subclassed, passed as a class, ...
                    break
                creations.append(path[:-1])
            parameters = self._handed_parameters(remote.handed)
            if creations is None or parameters is None:
                continue
            if not (creations or parameters or remote.called):
                continue
            flow = follow_instances(
                self.names,
                reads,
                creations,
                parameters,
                WEIGHT_READS,
                lambda call, path, position: None,  # handed on to a third module: not followed
                self.called_from_elsewhere,
                self.keeps_attributes,
            )
            if flow.escaped or not (flow.calls or remote.called):
                continue
            out[cls_id] = flow.calls
        return out

    def keeps_attributes(self, cls: cst.ClassDef) -> bool:
        """Whether an instance stored on `self` of `cls` is followed: not in a Keras class
        (there it is a sublayer its owner runs, with the owner's status)."""
        return id(cls) not in self.scan.keras_classes

    @cached_property
    def instance_reads(self) -> Reads:
        """The module's reads of names, for following instances."""
        return Reads(self.module)

    @cached_property
    def makes_symbolic_inputs(self) -> bool:
        """The module calls a Keras `Input` (or `InputLayer`): it may build functional
        models on symbolic inputs, so no call of a layer here is known to be eager."""
        return any(
            leaf_name(call.func) in ("Input", "InputLayer") for call, _ in self.scan.all_calls
        )

    def called_from_elsewhere(self, func: cst.FunctionDef) -> bool:
        """A top-level function that another file of the run calls (its "eager", "graph"
        or "loss" records): what it returns leaves the module."""
        if func not in self.module.body:
            return False
        return any(r.function == func.name.value for r in self.records("eager", "graph", "loss"))

    def _handed_parameters(
        self, handed: set[tuple[str, str]]
    ) -> list[tuple[cst.FunctionDef, str]] | None:
        """The parameters of this module's top-level functions that other modules pass an
        instance to ((function, position or keyword) of "hand" records); None where one
        names no such function or parameter."""
        out = []
        for function, position in sorted(handed):
            func = next(
                (
                    stmt
                    for stmt in self.module.body
                    if type(stmt) is cst.FunctionDef and stmt.name.value == function
                ),
                None,
            )
            if func is None or func.decorators:
                return None
            params = parameter_names(func)
            if position.isdigit():
                if int(position) >= len(func.params.posonly_params) + len(func.params.params):
                    return None
                position = params[int(position)]
            out.append((func, position))
        return out

    def keras_contexts(self, scan: GraphScan) -> list[tuple[cst.FunctionDef, GraphContext]]:
        """The graph context of every Keras graph method of the module."""
        uses = self.keras_uses[0]
        out = []
        copies = self.backup_copies
        for cls, method, kind, _path in scan.keras_methods:
            info = scan.keras_classes[id(cls)]
            used = uses.get(id(cls), [])
            if eager_metric(info, used) or (used and all(s == "eager" for s, _ in used)):
                continue  # run by no model, or only by models compiled with run_eagerly=True
            if not used and len(info.path) == 1 and cls.name.value in copies:
                continue  # a backup copy's class, used nowhere: no contract (engine/orphans.py)
            if self.turns_graphs_off(cls, info.path):
                continue  # its every instance exists only once tf.function runs eagerly
            status = self.status_of(info, used)
            name = method.name.value
            compiled = name not in NOT_COMPILED
            xla = status.xla and compiled
            auto = status.auto and compiled
            role = "`call`" if name == "call" else f"`{name}`"
            if xla:
                where = f"a Keras model compiled with `jit_compile=True`{status.where}"
            elif auto and status.switch:
                where = SWITCH_ORIGIN
            elif auto:
                where = 'a Keras model left at the default `jit_compile="auto"`'
            else:
                where = "Keras"
            count = GRAPH_METHODS[info.category][name]
            params = [p.name.value for p in method.params.params]
            tensors = frozenset(params[1 : 1 + count])
            out.append(
                (
                    method,
                    GraphContext(
                        xla,
                        kind != KERAS_3,  # Keras 2 converts with autograph; undecided: as 2
                        f"{role} of `{cls.name.value}` ({where})",
                        tensors,
                        auto_xla=auto,
                        layer=cls.name.value,
                        root_kind="keras",
                        assumed=not used,
                    ),
                )
            )
        return out


# Reads of a layer or model that run none of its graph methods.
WEIGHT_READS = frozenset(
    {
        "trainable_variables", "trainable_weights", "non_trainable_variables",
        "non_trainable_weights", "variables", "weights", "get_weights", "set_weights",
        "save_weights", "load_weights", "summary", "count_params", "layers", "name", "losses",
    }
)  # fmt: skip


@dataclass
class _Received:
    """What other modules said of a class's instances: the files that make one ("use"),
    those that say where all of theirs go ("inst": called eagerly, or only handed on),
    whether any was called, and the parameters of this module they were handed to."""

    makers: set[str] = field(default_factory=set)
    followed: set[str] = field(default_factory=set)
    escaped: bool = False
    called: bool = False
    handed: set[tuple[str, str]] = field(default_factory=set)

    @property
    def accounted(self) -> bool:
        return not self.escaped and self.makers <= self.followed


def _received_instances(records: Sequence[TfInbound]) -> dict[str, _Received]:
    """Per class name, what the "use", "inst" and "hand" records say of its instances."""
    out: dict[str, _Received] = {}
    for record in records:
        if record.kind == "hand":
            cls, _, position = record.status.partition("|")
            out.setdefault(cls, _Received()).handed.add((record.function, position))
            continue
        entry = out.setdefault(record.function, _Received())
        where = _site_file(record.site)
        if record.kind == "use":
            entry.makers.add(where)
        elif record.status in (INSTANCES_CALLED, INSTANCES_HANDED):
            entry.followed.add(where)
            entry.called |= record.status == INSTANCES_CALLED
        else:
            entry.escaped = True
    return out


def _site_file(site: str) -> str:
    """The file of a record's site: `pkg/train.py:12` -> `pkg/train.py` (a notebook's
    `nb.ipynb:cell 3:12` -> `nb.ipynb`)."""
    head, _, tail = site.rpartition(":")
    if not head or not tail.isdigit():
        return site
    cell_head, _, cell = head.rpartition(":")
    return cell_head if cell_head and cell.startswith("cell ") else head


def eager_metric(info: KerasClass, uses: Sequence[tuple[str, str]]) -> bool:
    """A metric no model is seen to run. A metric's `update_state` runs as graph code when a
    model runs it (`compile(metrics=...)`, or created by a model); one used nowhere in the
    project, or only in plain code, is most often updated eagerly by an evaluation loop,
    where `.numpy()` and Python state work (seen in google-research/deeplab2)."""
    return info.category == "metric" and not any(s in (*EXPLICIT, "model") for s, _ in uses)


def _runs_eagerly(call: cst.Call) -> bool:
    """`compile(..., run_eagerly=True)`: Keras runs the model's steps as plain Python."""
    return any(
        a.keyword is not None
        and a.keyword.value == "run_eagerly"
        and type(a.value) is cst.Name
        and a.value.value == "True"
        for a in call.args
    )


def _compile_status(flag: bool | str | None) -> str:
    if flag is True:
        return "xla"
    if flag is None:
        return "auto"
    if flag == UNKNOWN:
        return "switch"  # XLA in the runs where the value is true
    return "off"


def _compile_where(flag: bool | str | None) -> str:
    return ""


def _status_name(status: Status) -> str | None:
    if status.xla:
        return "xla"
    if status.auto:
        return "switch" if status.switch else "auto"
    return None


# Methods Keras and tf.Module run once, outside the traced step: making variables is their job.
SETUP_METHODS = frozenset({"__init__", "build", "_build", "setup", "create_variables"})


def in_setup_method(path: Sequence[cst.CSTNode]) -> bool:
    """The innermost function of `path` is one Keras runs once to set the object up."""
    for ancestor in reversed(path):
        if type(ancestor) is cst.FunctionDef:
            return ancestor.name.value in SETUP_METHODS  # type: ignore[attr-defined]
    return False


def keras_state(qualname: str, keras_major: int | None = 3) -> str | None:
    """What state a Keras class of the library makes when created ("Keras layer", "Keras
    metric", "Keras optimizer", "Keras model"); None for a weightless layer and anything
    else. `keras_major` is the Keras the file targets (None: undecided): a dropout or noise
    layer owns a seed variable only under Keras 3, so elsewhere it is weightless."""
    parts = qualname.split(".")
    if parts[0] not in ("keras", "tensorflow", "tf_keras") or "keras" not in parts[:3]:
        return None
    leaf = parts[-1]
    if leaf in KERAS_STATELESS_LAYERS or not leaf[:1].isupper():
        return None
    if leaf in KERAS_3_SEEDED_LAYERS and (keras_major != 3 or parts[0] == "tf_keras"):
        return None
    if "optimizers" in parts:
        return "Keras optimizer"
    if "metrics" in parts:
        return "Keras metric"
    if "layers" in parts:
        return "Keras layer"
    if leaf in ("Sequential", "Model"):
        return "Keras model"
    return None


# Never modules of the project: a base named in them is no class of another module. (Other
# libraries' bases are merely asked for and found in no module of the project.)
_LIBRARIES = frozenset({"tensorflow", "keras", "tf_keras", "numpy", *sys.stdlib_module_names})
# The statements a class statement may be found in (conditional definitions included).
_HOLDS_CLASSES = (
    cst.Module, cst.ClassDef, cst.FunctionDef, cst.IndentedBlock, cst.If, cst.Else, cst.Try,
    cst.With,
)  # fmt: skip


def _surest_kind(kinds: set[tuple[str, str]]) -> tuple[str, str] | None:
    """One (kind, category) of a base with several meanings, whatever the hash seed: Keras
    2 before Keras 3 (a project that tries tf_keras first runs Keras 2 where it is
    installed, and Keras 2 has no "auto" XLA: the fewer findings), then by name."""
    return min(kinds) if kinds else None


def _keras_fact(fact: str | None) -> tuple[str, str] | None:
    """(kind, category) from a Keras class fact; None for any other fact."""
    if fact is None or not fact.startswith(KERAS_CLASS_FACT):
        return None
    kind, _, category = fact[len(KERAS_CLASS_FACT) :].partition(":")
    if kind not in (KERAS_3, KERAS_2, KERAS_EITHER) or category not in GRAPH_METHODS:
        return None
    return kind, category


def keras_base(qualname: str, keras_major: int | None = 3) -> tuple[str, str] | None:
    """(kind, category) for a Keras base class's qualified name; `keras` and `tf.keras` are
    the Keras of `keras_major`, the one the file is linted for (the project's declared
    TensorFlow or Keras: `tensorflow<=2.11` makes `tf.keras` Keras 2; None: undecided)."""
    parts = qualname.split(".")
    if "keras" not in qualname or not parts[-1][:1].isupper():
        return None
    head = parts[0]
    if head == "tf_keras" or qualname.startswith("tensorflow.python.keras"):
        kind = KERAS_2
    elif head in ("keras", "tensorflow"):
        kind = KERAS_EITHER if keras_major is None else KERAS_3 if keras_major >= 3 else KERAS_2
    else:
        return None
    leaf = parts[-1]
    if "losses" in parts or leaf == "Loss":
        return (kind, "loss") if leaf.endswith("Loss") or leaf[:1].isupper() else None
    if "metrics" in parts or leaf == "Metric":
        return kind, "metric"
    layerish = "layers" in parts or leaf in ("Layer", "Model", "Sequential", "Functional")
    if layerish or leaf.endswith(("Layer", "Model", "Cell")):
        return kind, "layer"
    return None


def _passes_true(call: cst.Call, keyword: str) -> bool:
    """`call` passes `keyword=True`."""
    return any(
        a.keyword is not None
        and a.keyword.value == keyword
        and type(a.value) is cst.Name
        and a.value.value == "True"
        for a in call.args
    )
