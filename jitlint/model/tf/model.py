"""Where TensorFlow runs Python code as a graph, and where it compiles that graph with XLA.

Graph code is the body of a `tf.function` (decorated, or bound by `tf.function(f, ...)`), a
`tf.data` `map`/`filter` function, a Keras layer's `call` or a model's `train_step`/
`test_step`/`predict_step`, a `tf.while_loop`/`tf.cond`/`tf.map_fn` body reached from graph
code, and every module-local helper such code calls (autograph converts callees recursively).
XLA code is the part compiled with `jit_compile=True` (or `experimental_compile=True`), or
belonging to a Keras model compiled with `jit_compile=True`.

Keras 3 (what `tf.keras` is since TF 2.16) calls `call` and `train_step` without autograph:
`if tensor:` there raises (observed with TF 2.21 / Keras 3.15), unlike in a `tf.function`.
Which Keras a file targets is asked once, lazily (`keras_major`); where the project leaves it
undecided the model answers every Keras-3-only question "no": no `jit_compile="auto"` XLA,
Keras methods converted by autograph as Keras 2 does, no Keras 3 lazy-weight refusal. What
holds under both majors (an explicit `jit_compile=True`, a `tf.function`) is unaffected.
The model is built with one walk over the module, the first time a rule asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.model.tf.api import (
    DATASET_METHODS,
    DO_NOT_CONVERT,
    GRAPH_CALLBACK_ARGS,
    IS_TENSOR,
    SHAPE_KEEPING_DATASET_METHODS,
    TF_FUNCTION,
    VARYING_SHAPE_DATASETS,
    WHILE_LOOP,
    canonical,
)
from jitlint.model.tf.compile_flag import SWITCH_ORIGIN, UNKNOWN, compile_flag
from jitlint.model.tf.dtypes import DTYPE_LEAVES, TfDtypes
from jitlint.model.tf.function import (
    GraphArguments,
    GraphContext,
    TfFunction,
    graph_origin,
    signature_params,
    switches_functions_eagerly,
    tf_function_options,
)
from jitlint.model.tf.keras import MODEL_BUILDERS, KerasLinks, keras_3_imported
from jitlint.model.tf.repeats import Repeats, callee, find_repeats
from jitlint.model.tf.scan import Func, GraphScan, Path
from jitlint.model.tf.values import TENSOR, TfValues
from jitlint.model.tf_records import PASSIVE_KINDS, ImportedFacts, TfInbound, TfReads, use_entry
from jitlint.python.binding import receivers
from jitlint.python.builtins_facts import PARTIAL
from jitlint.python.names import Names
from jitlint.python.predicates import conjuncts
from jitlint.python.uses import repeats_body
from jitlint.python.walker import iter_children

if TYPE_CHECKING:
    from jitlint.model.tf_records import TfInbound

# Text that any graph context needs: tf.function (called, decorating, or imported under an
# alias), a tf.data method, or a class deriving from a Keras layer or model.
_GRAPH_MARKER_PARTS = (
    r"function\s*\(",
    r"@[\w.]*function\b",
    r"import[^\n]*\bfunction\b",
    r"\.(?:map|filter|flat_map|interleave)\(",
    r"class\s+\w+\s*\([^)]*(?:Layer|Model|Sequential|Cell|Loss|Metric)\b",
    r"\.compile\(",
    r"\b(?:load_model|clone_model|model_from_json|Sequential)\(",
)
# Searched one by one: a pattern that starts with a literal is searched for fast, and their
# union, which starts with none, was tried at every character (~1.6x the time). So is the
# last one (`\b` first): it is searched only in a text that holds one of its calls'
# spellings, found by substring tests (the whole test over the corpus: 0.22 -> 0.065 s).
_MODEL_MAKER_CALLS = ("load_model(", "clone_model(", "model_from_json(", "Sequential(")
_GRAPH_MARKER_SEARCHES = tuple(re.compile(part).search for part in _GRAPH_MARKER_PARTS[:-1])
_MODEL_MAKER_SEARCH = re.compile(_GRAPH_MARKER_PARTS[-1]).search


def _has_graph_marker(source: str) -> bool:
    """Whether any of `_GRAPH_MARKER_PARTS` matches in `source`."""
    return any(search(source) for search in _GRAPH_MARKER_SEARCHES) or (
        any(call in source for call in _MODEL_MAKER_CALLS) and bool(_MODEL_MAKER_SEARCH(source))
    )


# `import a.b as c`, `from x import a, b as c`: the names a module binds by importing, a
# cheap filter for `c.f(...)` calls that may reach a function of another module. A
# parenthesised list runs to its `)` over several lines, a line ending in `\` goes on.
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]+(\([^)]*\)|(?:[^\n#\\]|\\\n)*)", re.M
)
_IMPORT_COMMENT = re.compile(r"#[^\n]*")
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# Aliases of libraries, never modules of the project: `tf.f(x)` needs no cross-module record.
_LIBRARY_ALIASES = frozenset(
    {"tf", "np", "jnp", "jax", "keras", "K", "math", "os", "sys", "tfp", "torch", "functools"}
)


# Libraries that are never modules of a project: no dtype facts to ask them for.
_NOT_PROJECT = frozenset(
    {"tensorflow", "numpy", "jax", "keras", "tf_keras", "functools", "typing", "os", "sys",
     "math", "collections", "itertools", "logging", "re", "abc", "dataclasses", "__future__",
     "scipy", "tensorflow_probability", "absl", "six", "time", "json", "pathlib", "warnings"}
)  # fmt: skip


_WIDE_SPELLINGS = frozenset({"float64", "double", "complex128", "FLOAT", "DOUBLE"})


def _may_widen(leaf: str, call: cst.Call) -> bool:
    """A cast, a `dtype=`, or a wide dtype's name as an argument: where a parameter may be
    cast to, or meet, float64 (the top-level functions worth a dtype summary)."""
    if leaf == "cast":
        return True
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return True
        value = arg.value
        kind = type(value)
        if (kind is cst.Attribute and value.attr.value in _WIDE_SPELLINGS) or (  # type: ignore[attr-defined]
            kind is cst.Name and value.value in _WIDE_SPELLINGS  # type: ignore[attr-defined]
        ):
            return True
    return False


def _func_name(func: Func) -> str:
    return func.name.value if type(func) is cst.FunctionDef else "<lambda>"


def any_in_graph(paths: Sequence[Path], contexts: dict[int, GraphContext]) -> bool:
    """Whether a function with a graph context encloses any of `paths` (the module's code,
    a function without one, is eager)."""
    return any(
        id(node) in contexts
        for path in paths
        for node in path
        if type(node) is cst.FunctionDef or type(node) is cst.Lambda
    )


class TfModel(KerasLinks):
    def __init__(
        self,
        names: Names,
        source: str | None = None,
        inbound: Sequence[TfInbound] = (),
        keras_major: Callable[[], int | None] = lambda: 3,
        keras_stated: Callable[[], bool] = lambda: False,
    ) -> None:
        self.names = names
        # Asked on first use: in an undecided project the answer reads the project's code.
        self._keras_major = keras_major
        self._keras_stated = keras_stated
        self.module = names.module
        self.source = source
        # Read only through `records` and `facts` (what `reads` reports).
        self._inbound = tuple(inbound)
        self._keras_kinds: dict[int, tuple[str, str] | None] = {}
        # Uses of this module's classes (and model-building functions) reported by other
        # files: name -> (status, where); read through `uses_received`, which notes the names.
        self._uses_received: dict[str, list[tuple[str, str]]] = {}
        self._use_names_read: set[str] = set()
        # Keras methods of classes only called eagerly, with the context each would have
        # had (`contexts` fills it; `keras_input_context`).
        self.eager_keras: dict[int, GraphContext] = {}
        # The kinds of inbound records read (`records`), for `reads`.
        self._kinds_read: set[str] = set()
        # (id of an `if`, whether its body) -> whether graph code never runs that branch.
        self._non_tensor_memo: dict[tuple[int, bool], bool] = {}
        for record in self._inbound:
            if record.kind == "use":
                self._uses_received.setdefault(record.function, []).append(use_entry(record))

    # ----- public questions -------------------------------------------------------------

    @cached_property
    def may_have_graph_code(self) -> bool:
        """Without any of `_GRAPH_MARKER_PARTS`' spellings, or a record that opens the TF rules, a
        module has no graph code: no scan is needed for it. Asked on first use: the project
        pass builds the model of files that never ask (a class's bases)."""
        source = self.source
        return (
            source is None
            or _has_graph_marker(source)
            or any(record.kind not in PASSIVE_KINDS for record in self._inbound)
        )

    @cached_property
    def keras_major(self) -> int | None:
        """The Keras major the file targets; None where its project leaves it undecided."""
        return self._keras_major()

    @cached_property
    def keras_auto_jit(self) -> bool:
        """A model compiled at the default `jit_compile` may run under XLA: Keras 3's "auto"
        (Keras 2 has no "auto", and an undecided project may run either)."""
        return self.keras_major == 3

    @cached_property
    def keras_3_known(self) -> bool:
        """Keras 3 is the target and not merely the facts' default: configured, declared,
        shown by the project's code, or by this file's own Keras-3-only modules. Hazards of
        Keras 3 that a lone file's reader may not mean (lazy weights) ask this."""
        if self.keras_major != 3:
            return False
        return self._keras_stated() or keras_3_imported(self.source or "")

    @cached_property
    def values(self) -> TfValues:
        return TfValues(self.names, self)

    @cached_property
    def keras_uses(
        self,
    ) -> tuple[dict[int, list[tuple[str, str]]], list[tuple[cst.Call, Path, str]]]:
        """(statuses of each local Keras class, calls that create classes of other modules
        where a model is built or compiled, with the status to send): keras.py."""
        return self.class_uses(self.scan)

    @cached_property
    def repeats(self) -> Repeats:
        """Functions that run more than once, and parameters that receive varying Python
        values (repeats.py)."""
        return find_repeats(self)

    def exports(self) -> dict[str, str]:
        """Facts about this module's top-level names that other modules may import (the
        dtype facts of dtypes.py, its Keras classes): dotted name -> fact."""
        return {**self.dtypes.summaries(), **self.keras_exports()}

    def project_imports(self) -> list[tuple[cst.CSTNode, Path, str]]:
        """Module-level imports of names that may be in other modules of the project:
        (the alias node, its path, the dotted name), for the dtype facts they export."""
        found: list[tuple[cst.CSTNode, Path, str]] = []
        for stmt in self.module.body:
            if type(stmt) is not cst.SimpleStatementLine:
                continue
            for small in stmt.body:
                kind = type(small)
                if kind is cst.ImportFrom and type(small.names) is not cst.ImportStar:  # type: ignore[attr-defined]
                    base = "." * len(small.relative)  # type: ignore[attr-defined]
                    if small.module is not None:  # type: ignore[attr-defined]
                        base += _dotted_text(self.module, small.module)  # type: ignore[attr-defined]
                    for alias in small.names:  # type: ignore[attr-defined]
                        name = _dotted_text(self.module, alias.name)
                        dotted = f"{base}.{name}" if not base.endswith(".") else base + name
                        found.append((alias, [self.module, stmt, small], dotted))
                elif kind is cst.Import:
                    for alias in small.names:  # type: ignore[attr-defined]
                        dotted = _dotted_text(self.module, alias.name)
                        found.append((alias, [self.module, stmt, small], dotted))
        return [f for f in found if f[2].split(".")[0] not in _NOT_PROJECT]

    @cached_property
    def dtypes(self) -> TfDtypes:
        return TfDtypes(self.values, self)

    @cached_property
    def facts(self) -> ImportedFacts:
        """Dtype facts of imported names (dotted as this module spells them) -> fact."""
        return ImportedFacts(self._inbound)

    def records(self, *kinds: str) -> list[TfInbound]:
        """The inbound records of these kinds, in order. Every reading of the records but
        the facts' and the kind test of `may_have_graph_code` goes through here, so that
        `reads` can say what the lint read."""
        self._kinds_read.update(kinds)
        return [r for r in self._inbound if r.kind in kinds]

    def uses_received(self, names: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        """What other files' "use" records say of these names (this module's classes and
        model-building functions): name -> (status, where), in the records' order. Only
        these names' records are read (`reads`): a record of another name, arriving or
        gone, cannot change what the caller does with them."""
        wanted = set(names)
        self._use_names_read |= wanted
        return {name: got for name, got in self._uses_received.items() if name in wanted}

    def reads(self) -> TfReads:
        """What this model read of its inbound records so far (model/tf_records.py)."""
        kinds = frozenset(self._kinds_read)
        uses = frozenset(self._use_names_read)
        facts = self.__dict__.get("facts")
        if facts is None:
            return TfReads(kinds, frozenset(), frozenset(), False, uses)
        asked, prefixes = frozenset(facts.asked), frozenset(facts.prefixes)
        return TfReads(kinds, asked, prefixes, facts.asked_any, uses)

    def scope_path(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """The path from the module to a function or class, ending with it."""
        if node is self.module:
            return (self.module,)
        return self.scan.def_paths.get(id(node), (self.module, node))

    @property
    def loss_functions(self) -> set[int]:
        return self.scan.loss_functions

    def is_tf_function(self, func: Func) -> bool:
        """TensorFlow calls `func` itself (a tf.function, a tf.data or loss function):
        NumPy arguments reach it as tensors."""
        return id(func) in self.scan.roots

    def callee(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> tuple[Func, int] | None:
        return callee(self, call, path)  # type: ignore[arg-type]

    @cached_property
    def _keras_methods_by_id(self) -> dict[int, tuple[Any, str]]:
        scan = self.scan
        return {
            id(method): (scan.keras_classes[id(cls)], method.name.value)
            for cls, method, _kind, _path in scan.keras_methods
        }

    def keras_class_of(self, func: Func) -> tuple[Any, str] | None:
        """(KerasClass, method name) when `func` is a Keras graph method."""
        return self._keras_methods_by_id.get(id(func))

    def context(self, path: Sequence[cst.CSTNode]) -> GraphContext | None:
        """The graph context of the innermost function on `path` that has one."""
        contexts = self.contexts
        if not contexts:
            return None
        for index in range(len(path) - 1, -1, -1):
            node = path[index]
            kind = type(node)
            if kind is cst.FunctionDef or kind is cst.Lambda:
                found = contexts.get(id(node))
                if found is not None:
                    if self.graph_arguments.decides_against(node, path):
                        return None
                    return found
            elif kind is cst.If and index + 1 < len(path):
                branch, outer = path[index + 1], path[:index]
                if self._eager_branch(node, branch, outer) or self._non_tensor_branch(
                    node,  # type: ignore[arg-type]
                    branch,
                    outer,
                ):
                    return None
        return None

    def graph_by_contract(self, path: Sequence[cst.CSTNode]) -> bool:
        """Whether the end of `path` is graph code only by Keras' contract (a class no file
        of the run is seen to use: `GraphContext.assumed`)."""
        context = self.context(path) if "contexts" in vars(self) else None
        return context is not None and context.assumed

    @cached_property
    def graph_arguments(self) -> GraphArguments:
        """What the graph paths give each function's parameters, as far as literals go: a
        helper's branch that every graph path decides against is no graph code (`if
        verbose: print(x.numpy())` where every graph call leaves or forwards `verbose` at
        False; python/binding.py `may_reach`)."""
        return GraphArguments(self)

    def graph_sites(
        self, func: cst.FunctionDef
    ) -> Sequence[tuple[cst.Call, Sequence[cst.CSTNode], int]]:
        """This module's graph calls of `func`, with their paths and receivers."""
        return self.values.helper_sites.get(id(func), ())

    def graph_records(self, func: cst.FunctionDef) -> list[str]:
        """The arguments of other files' "graph" records of the top-level `func`."""
        if not any(stmt is func for stmt in self.module.body):
            return []
        name = func.name.value
        return [r.status for r in self.records("graph") if r.function == name]

    def _non_tensor_branch(self, node: cst.If, branch: cst.CSTNode, outer: Path) -> bool:
        """The branch of `if not tf.is_tensor(x):` (or the `else` of `if tf.is_tensor(x):`,
        also through a local flag bound once to `tf.is_tensor(x)`) where graph code gives `x`
        as a tensor: there the test decides against the branch, so graph code never runs it.
        Code written for both NumPy and tensor inputs converts back to NumPy this way, and a
        Keras layer's `__call__` turns NumPy inputs into tensors before `call` (Keras 2 and 3).
        A value that may be a structure of tensors (a root's whole input) decides nothing:
        `tf.is_tensor` of a list is False."""
        if not self._mentions_is_tensor:
            return False
        key = (id(node), branch is node.body)
        found = self._non_tensor_memo.get(key)
        if found is None:
            outcome = branch is node.body
            subjects = self._not_tensor_subjects(node.test, outcome, (*outer, node), 0)
            values = self._received_values
            found = any(
                values.value(e, at).kind == TENSOR and not values.whole_input(e, at)
                for e, at in subjects
            )
            self._non_tensor_memo[key] = found
        return found

    def _not_tensor_subjects(
        self, test: cst.BaseExpression, outcome: bool, path: Path, depth: int
    ) -> list[tuple[cst.BaseExpression, Path]]:
        """The expressions (with the path each is read at) that `test` evaluating to
        `outcome` proves are not tensors: `tf.is_tensor(e)` false, under `not`, in every part
        of an `and` that holds (or of an `or` that fails), or a local name bound once to such a
        call."""
        kind = type(test)
        if kind is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
            return self._not_tensor_subjects(test.expression, not outcome, path, depth)  # type: ignore[attr-defined]
        if kind is cst.BooleanOperation:
            # `A and B` held (or `A or B` failed): each part did; otherwise no one part is known.
            if (type(test.operator) is cst.And) != outcome:  # type: ignore[attr-defined]
                return []
            return [
                found
                for part in (test.left, test.right)  # type: ignore[attr-defined]
                for found in self._not_tensor_subjects(part, outcome, path, depth)
            ]
        if kind is cst.Call:
            if outcome or len(test.args) != 1 or test.args[0].keyword or test.args[0].star:  # type: ignore[attr-defined]
                return []
            if canonical(self.names.qualified_names(test.func, path)) != {IS_TENSOR}:  # type: ignore[attr-defined]
                return []
            return [(test.args[0].value, (*path, test))]  # type: ignore[attr-defined]
        if kind is cst.Name and depth == 0:
            defs = self.values.name_defs(test, path)  # type: ignore[arg-type]
            if defs is None or len(defs) != 1 or defs[0].kind != "assign":
                return []
            value = defs[0].node
            if type(value) is not cst.Call:
                return []
            return self._not_tensor_subjects(value, outcome, defs[0].path, depth + 1)  # type: ignore[arg-type]
        return []

    @cached_property
    def _received_values(self) -> TfValues:
        """Values that also read other files' "graph" records for the parameters of helpers
        only they call: kept apart from `values`, which every rule reads."""
        return TfValues(self.names, self, received=True)

    @cached_property
    def _mentions_is_tensor(self) -> bool:
        return self.source is None or "is_tensor" in self.source

    def staged_loop(self, loop: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        """Autograph stages `loop` (`path` ends at it) into a `tf.while_loop`, so its body is
        traced once per trace of its function, never run per iteration: a `for` over a
        tensor (`tf.range(n)`) or a tf.data dataset, or a `while` on a tensor, in code that
        must run as graph code with autograph. Code that may also run eagerly iterates in
        Python there (hazards T13)."""
        context = self.context(path)
        if context is None or not context.must or not context.autograph:
            return False
        outer = path[:-1]
        if self.values.on_tensor(loop, outer):
            return True
        return type(loop) is cst.For and self.is_dataset_value(loop.iter, outer)  # type: ignore[attr-defined]

    def in_eager_branch(self, path: Sequence[cst.CSTNode]) -> bool:
        """The end of `path` is in a branch that runs only eagerly, in its own function."""
        for index in range(len(path) - 2, -1, -1):
            node = path[index]
            kind = type(node)
            if kind is cst.FunctionDef or kind is cst.Lambda:
                return False
            if kind is cst.If and self._eager_branch(node, path[index + 1], path[:index]):  # type: ignore[arg-type]
                return True
        return False

    def _eager_branch(self, node: cst.If, branch: cst.CSTNode, path: Path) -> bool:
        """The branch of `if tf.executing_eagerly():` (or the `else` of `if
        tf.inside_function():`/`if not tf.executing_eagerly():`) that runs only eagerly.
        Under `and` (`if mask is not None and tf.executing_eagerly():`) only the body can be:
        it runs when every part holds, the `else` when any part fails."""
        test = node.test
        if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
            parts = conjuncts(test)
            return branch is node.body and any(
                self._eager_test(part, [*path, node]) is True for part in parts
            )
        eager_when = self._eager_test(test, [*path, node])
        if eager_when is None:
            return False
        return branch is (node.body if eager_when else node.orelse)

    def _eager_test(self, test: cst.BaseExpression, path: Path) -> bool | None:
        """Whether graph code makes `test` false (True: `tf.executing_eagerly()`, `not
        tf.inside_function()`), true (False: the negations), or neither is known (None)."""
        negated = False
        while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            test, negated = test.expression, not negated  # type: ignore[attr-defined]
        if type(test) is not cst.Call or type(test.func) not in (cst.Name, cst.Attribute):  # type: ignore[attr-defined]
            return None
        leaf = test.func.attr.value if type(test.func) is cst.Attribute else test.func.value  # type: ignore[attr-defined]
        if leaf not in ("executing_eagerly", "inside_function"):
            return None
        names = canonical(self.names.qualified_names(test.func, path))  # type: ignore[attr-defined]
        if not names or not all(n.startswith("tensorflow.") for n in names):
            return None
        return (leaf == "executing_eagerly") != negated

    def function_context(self, func: Func) -> GraphContext | None:
        return self.contexts.get(id(func))

    def keras_input_context(self, func: Func) -> GraphContext | None:
        """`function_context`, or for a Keras method whose class the run only calls
        eagerly (no graph code), the context its class would have had: Keras casts the
        inputs of `call` to the layer's dtype eagerly too, and dtype facts hold there."""
        found = self.contexts.get(id(func))
        return found if found is not None else self.eager_keras.get(id(func))

    def trace_time_setting(self, func: cst.FunctionDef, name: str) -> bool:
        """Whether `func`'s writes of the module global `name` set a Python value that only
        graph code reads: each a plain `name = value` whose value is no tensor and reads
        not `name` (no counter), and every read of `name` in the module (one at least) is in
        a function that must run as graph code. Such a global is a setting of the trace
        that reads it (a mode set by a step before it calls the layers that read it while
        tracing): written once per trace is what its readers need. Where `func` itself also
        runs eagerly (a setter the program calls outside graph code too), eager readers are
        allowed: the setting is the program's own, and graph code only sets it as it traces."""
        contexts = self.contexts
        own = contexts.get(id(func))
        setter = own is not None and not own.must
        read = False  # and some graph code reads it: a global no one reads here is no setting
        stack: list[tuple[cst.CSTNode, cst.CSTNode | None, Func | None]] = [
            (self.module, None, None)
        ]
        while stack:
            node, parent, owner = stack.pop()
            kind = type(node)
            if kind is cst.Name:
                if node.value != name or parent is None:  # type: ignore[attr-defined]
                    continue
                if type(parent) in (cst.NameItem, cst.AssignTarget, cst.Param):
                    continue  # `global name`, `name = ...`: no read
                if type(parent) is cst.Attribute and parent.attr is node:  # type: ignore[attr-defined]
                    continue
                if type(parent) is cst.Arg and parent.keyword is node:  # type: ignore[attr-defined]
                    continue
                if owner is func:
                    return False  # `name = name + 1`, `name += 1`: a counter
                context = contexts.get(id(owner)) if owner is not None else None
                if (context is None or not context.must) and not setter:
                    return False  # read by code that also runs eagerly
                read = True
                continue
            if kind is cst.FunctionDef or kind is cst.Lambda:
                owner = node  # type: ignore[assignment]
            elif kind is cst.Assign and owner is func:
                targets = node.targets  # type: ignore[attr-defined]
                if any(type(t.target) is cst.Name and t.target.value == name for t in targets):
                    path = [*self.scope_path(func), node]
                    if self.values.value(node.value, path).kind == TENSOR:  # type: ignore[attr-defined]
                        return False
            stack.extend((child, node, owner) for child in iter_children(node))
        return read

    def local_call_sites(self, func: cst.FunctionDef) -> list[tuple[cst.Call, Path]]:
        """The calls of `func` in this module, with their paths (from the module): `name(...)`
        of a module-level function; `self.name(...)` (or `cls.`) in any class's methods of a
        method (a subclass's calls included: each may reach it); empty for nested functions."""
        name = func.name.value
        if self.scan.owner.get(id(func)) is not self.module:
            return []
        if id(func) not in self.scan.owner_class:
            return [
                (call, path)
                for sites in self.scan.calls.values()
                for call, path in sites
                if type(call.func) is cst.Name and call.func.value == name
            ]
        return [
            (call, path)
            for sites in self.scan.calls.values()
            for call, path in sites
            if type(call.func) is cst.Attribute
            and call.func.attr.value == name
            and any(type(node) is cst.ClassDef for node in path)
        ]

    def is_loop_body(self, func: Func) -> bool:
        """A `tf.while_loop` body or condition: its parameters are loop variables."""
        return id(func) in self.scan.loop_bodies

    @property
    def applications(self) -> list[tuple[TfFunction, Path]]:
        return self.scan.applications

    def tf_function_spec(
        self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> tuple[bool | None, bool, bool, bool] | None:
        """Options if `expr` is `tf.function`, `tf.function(**kw)`, `partial(tf.function, ..)`."""
        kind = type(expr)
        if kind is cst.Name or kind is cst.Attribute:
            if self._spelled(expr, "function") and self.names.resolves_to(expr, path, TF_FUNCTION):
                return False, True, False, False
            return None
        if kind is not cst.Call:
            return None
        func = expr.func  # type: ignore[attr-defined]
        positional = [a for a in expr.args if a.keyword is None]  # type: ignore[attr-defined]
        if (
            not positional
            and self._spelled(func, "function")
            and self.names.resolves_to(func, path, TF_FUNCTION)
        ):
            return tf_function_options(expr.args)  # type: ignore[attr-defined]
        if (
            len(positional) == 1
            and self._spelled(func, "partial")
            and self.names.resolves_to(func, path, PARTIAL)
            and self.names.resolves_to(positional[0].value, path, TF_FUNCTION)
        ):
            return tf_function_options(expr.args)  # type: ignore[attr-defined]
        return None

    def resolve_function(
        self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> tuple[Func, bool] | None:
        """The def/lambda `expr` names, and whether autograph still converts it."""
        kind = type(expr)
        if kind is cst.Lambda:
            return expr, True  # type: ignore[return-value]
        if kind is cst.Name:
            bindings = self.names.lookup(expr.value, path)  # type: ignore[attr-defined]
            if bindings and len(bindings) == 1 and bindings[0].kind == "def":
                node = bindings[0].node
                if type(node) is cst.FunctionDef:
                    return node, not self._has_do_not_convert(node, path)
            return None
        if kind is cst.Attribute:
            value = expr.value  # type: ignore[attr-defined]
            if type(value) is cst.Name and value.value in ("self", "cls"):
                method = self._method(path, expr.attr.value)  # type: ignore[attr-defined]
                if method is not None:
                    return method, not self._has_do_not_convert(method, path)
            return None
        if kind is cst.Call and expr.args:  # type: ignore[attr-defined]
            func = expr.func  # type: ignore[attr-defined]
            inner = expr.args[0].value  # type: ignore[attr-defined]
            if self._spelled(func, "do_not_convert") and self.names.resolves_to(
                func, path, DO_NOT_CONVERT
            ):
                found = self.resolve_function(inner, path)
                return (found[0], False) if found else None
            if self._spelled(func, "partial") and self.names.resolves_to(func, path, PARTIAL):
                return self.resolve_function(inner, path)
        return None

    # ----- construction -----------------------------------------------------------------

    @cached_property
    def _aliases(self) -> dict[str, frozenset[str]]:
        """Module-level import aliases of tf.function / do_not_convert / partial."""
        wanted = {"function": TF_FUNCTION, "do_not_convert": DO_NOT_CONVERT, "partial": PARTIAL}
        found: dict[str, set[str]] = {leaf: {leaf} for leaf in wanted}
        for name, bindings in self.names.scope(self.module).bindings.items():
            for leaf, qualnames in wanted.items():
                if any(b.kind == "import" and b.qualname in qualnames for b in bindings):
                    found[leaf].add(name)
        return {leaf: frozenset(names) for leaf, names in found.items()}

    def _spelled(self, expr: cst.CSTNode, leaf: str) -> bool:
        """A cheap test before name resolution: `expr` is spelled `leaf` or an alias of it."""
        kind = type(expr)
        if kind is cst.Attribute:
            return expr.attr.value == leaf  # type: ignore[attr-defined]
        if kind is not cst.Name:
            return False
        return expr.value in self._aliases.get(leaf, (leaf,))  # type: ignore[attr-defined]

    def _has_do_not_convert(self, func: cst.FunctionDef, path: Sequence[cst.CSTNode]) -> bool:
        return any(
            self._spelled(d.decorator, "do_not_convert")
            and self.names.resolves_to(d.decorator, [*path, d], DO_NOT_CONVERT)
            for d in func.decorators
        )

    def _method(self, path: Sequence[cst.CSTNode], name: str) -> cst.FunctionDef | None:
        for node in reversed(path):
            if type(node) is cst.ClassDef:
                for stmt in node.body.body:  # type: ignore[attr-defined]
                    if type(stmt) is cst.FunctionDef and stmt.name.value == name:
                        return stmt
                return None
        return None

    @cached_property
    def imported_aliases(self) -> frozenset[str]:
        found: set[str] = set()
        for match in _IMPORT_LINE.finditer(self.source or ""):
            names = _IMPORT_COMMENT.sub("", match.group(1)).replace("\\\n", " ")
            for part in names.strip("()").split(","):
                words = part.split()
                if len(words) >= 3 and words[1] == "as":
                    found.add(words[2])
                elif words:
                    found.add(words[0].split(".")[0])
        return frozenset(found)

    @cached_property
    def scan(self) -> GraphScan:
        scan = GraphScan()
        parents: list[cst.CSTNode] = []
        funcs: list[cst.CSTNode] = [self.module]  # enclosing functions (module at the bottom)
        # Per enclosing function: how many loop bodies / comprehensions hold the node.
        self._loops = loops = [0]
        loop_parts: set[int] = set()
        scan.scopes[id(self.module)] = self.module
        stack: list[tuple[cst.CSTNode, bool]] = [(self.module, True)]
        while stack:
            node, entering = stack.pop()
            kind = type(node)
            if not entering:
                parents.pop()
                if kind is cst.FunctionDef or kind is cst.Lambda:
                    funcs.pop()
                    loops.pop()
                elif id(node) in loop_parts:
                    loops[-1] -= 1
                continue
            if kind is cst.FunctionDef or kind is cst.Lambda:
                scan.owner[id(node)] = funcs[-1]
                scan.nested.setdefault(id(funcs[-1]), []).append(node)  # type: ignore[arg-type]
                scan.scopes[id(node)] = node
                scan.def_paths[id(node)] = (*parents, node)
                if kind is cst.FunctionDef:
                    if len(parents) >= 2 and type(parents[-2]) is cst.ClassDef:
                        scan.owner_class[id(node)] = parents[-2]  # type: ignore[assignment]
                    self._scan_def(scan, node, parents)  # type: ignore[arg-type]
            elif kind is cst.ClassDef:
                scan.def_paths[id(node)] = (*parents, node)
                self._scan_class(scan, node, parents)  # type: ignore[arg-type]
            elif kind is cst.Call:
                scan.all_calls.append((node, (*parents, node)))  # type: ignore[arg-type]
                self._scan_call(scan, node, parents, funcs[-1])  # type: ignore[arg-type]
            elif (kind is cst.For or kind is cst.While) and repeats_body(node):
                loop_parts.add(id(node.body))  # type: ignore[attr-defined]
            children = iter_children(node)
            if not children:
                # A leaf (a name, a literal) changes no state: nothing to do on leaving it.
                # (Functions, classes, calls, loop bodies and comprehensions have children.)
                continue
            if id(node) in loop_parts or kind in _COMPREHENSIONS:
                loop_parts.add(id(node))
                loops[-1] += 1
            parents.append(node)
            stack.append((node, False))
            if kind is cst.FunctionDef or kind is cst.Lambda:
                funcs.append(node)
                loops.append(0)
            # Entering (True) each child, then leaving (False) this node; a bare name is a
            # leaf the scan has nothing to do with, not stacked at all.
            stack += [(child, True) for child in reversed(children) if type(child) is not cst.Name]
        return scan

    def _scan_def(self, scan: GraphScan, node: cst.FunctionDef, parents: Path) -> None:
        path = [*parents, node]
        for decorator in node.decorators:
            spec = self.tf_function_spec(decorator.decorator, [*path, decorator])
            if spec is None:
                continue
            xla, autograph, signature, retracing = spec
            autograph = autograph and not self._has_do_not_convert(node, parents)
            app = TfFunction(decorator.decorator, node, xla, autograph, signature, retracing)
            scan.applications.append((app, path))
            self._add_root(scan, node, app)
            return

    def _add_root(self, scan: GraphScan, func: Func, app: TfFunction) -> None:
        params: frozenset[str] = frozenset()
        if app.input_signature:
            in_class = type(func) is cst.FunctionDef and id(func) in scan.owner_class
            params = signature_params(app, func, receivers(func, in_class) if in_class else 0)  # type: ignore[arg-type]
        context = GraphContext(
            bool(app.xla), app.autograph, graph_origin(app), params, root_kind="tf.function"
        )
        known = scan.roots.get(id(func))
        scan.roots[id(func)] = (func, known[1].merge(context) if known else context)

    def _scan_call(
        self, scan: GraphScan, node: cst.Call, parents: Path, owner: cst.CSTNode
    ) -> None:
        func = node.func
        kind = type(func)
        # Calls that may reach a module-local helper or method: `f(...)`, `self.f(...)`.
        # (Copying the path is the costly part of the scan; `tf.x(...)` calls need none.)
        if kind is cst.Name or (
            kind is cst.Attribute
            and type(func.value) is cst.Name  # type: ignore[attr-defined]
            and func.value.value in ("self", "cls")  # type: ignore[attr-defined]
        ):
            scan.calls.setdefault(id(owner), []).append((node, [*parents, node]))
        elif (
            kind is cst.Attribute
            and type(func.value) is cst.Name  # type: ignore[attr-defined]
            and func.value.value in self.imported_aliases  # type: ignore[attr-defined]
            and func.value.value not in _LIBRARY_ALIASES  # type: ignore[attr-defined]
        ):
            scan.attribute_calls.setdefault(id(owner), []).append((node, [*parents, node]))
        if kind is not cst.Name and kind is not cst.Attribute:
            return
        if self._loops[-1] and (kind is cst.Name or type(func.value) is cst.Name):  # type: ignore[attr-defined]
            scan.loop_calls.append((node, [*parents, node]))
        leaf = func.value if kind is cst.Name else func.attr.value  # type: ignore[attr-defined]
        if leaf in ("constant", "convert_to_tensor", "Variable") and len(node.args) == 1:
            scan.constants.append((node, [*parents, node]))  # maybe an untyped float constant
        if leaf in DTYPE_LEAVES:
            scan.dtype_calls.append((node, [*parents, node]))
        if len(parents) >= 2 and type(parents[1]) is cst.FunctionDef and _may_widen(leaf, node):
            scan.widening.add(id(parents[1]))  # a top-level function that may cast/widen
        if kind is cst.Name and leaf in self._aliases["function"]:
            leaf = "function"
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if leaf == "function" and positional:
            path = [*parents, node]
            if self.names.resolves_to(func, path, TF_FUNCTION):
                xla, autograph, signature, retracing = tf_function_options(node.args)
                target = self.resolve_function(positional[0].value, path)
                if target is None:
                    target = self._instance_call(positional[0].value, path)
                app = TfFunction(
                    node,
                    target[0] if target else None,
                    xla,
                    autograph and (target[1] if target else True),
                    signature,
                    retracing,
                )
                scan.applications.append((app, path))
                if target is not None:
                    self._add_root(scan, target[0], app)
        elif leaf in ("while_loop", "cond", "map_fn", "scan", "foldl", "foldr", "vectorized_map"):
            path = [*parents, node]
            names = canonical(self.names.qualified_names(func, path))
            if len(names) != 1:
                return
            api = next(iter(names))
            slots = GRAPH_CALLBACK_ARGS.get(api)
            if slots is None:
                return
            for position, keyword in slots:
                arg = call_argument(node, position, keyword)
                if arg is None:
                    continue
                target = self.resolve_function(arg.value, path)
                if target is not None:
                    scan.callbacks.setdefault(id(owner), []).append(target)
                    if api == WHILE_LOOP:
                        scan.loop_bodies.add(id(target[0]))
                elif type(arg.value) in (cst.Name, cst.Attribute):
                    scan.foreign_callbacks.setdefault(id(owner), []).append((arg.value, path))
        elif leaf in DATASET_METHODS and kind is cst.Attribute and positional:
            path = [*parents, node]
            if self._is_dataset(func.value, node, path):  # type: ignore[attr-defined]
                target = self.resolve_function(positional[0].value, path)
                if target is not None:
                    context = GraphContext(
                        False, target[1], "a `tf.data` pipeline function", root_kind="tf.data"
                    )
                    scan.roots.setdefault(id(target[0]), (target[0], context))
        elif leaf == "compile" and kind is cst.Attribute:
            path = [*parents, node]
            if not self.names.qualified_names(func, path) - {""}:  # not `re.compile`
                flag: bool | str | None = None
                for arg in node.args:
                    if arg.keyword is not None and arg.keyword.value == "jit_compile":
                        flag = compile_flag(self.names, arg.value, path)
                scan.compiles.append((node, path, flag))
                self._compiled_functions(scan, node, path, flag)
        elif leaf in ("Sequential", "Model", "Functional"):
            path = [*parents, node]
            if self.names.resolves_to(func, path, MODEL_BUILDERS):
                scan.model_builds[id(owner)] = owner

    def _compiled_functions(
        self, scan: GraphScan, call: cst.Call, path: Path, flag: bool | str | None
    ) -> None:
        """Loss and metric functions given to `compile(...)`: graph code of the train step,
        their first two parameters the targets and predictions."""
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword not in ("loss", "metrics", "weighted_metrics"):
                continue
            stack: list[cst.CSTNode] = [arg.value]
            while stack:
                expr = stack.pop()
                kind = type(expr)
                if kind in (cst.List, cst.Tuple):
                    stack.extend(e.value for e in expr.elements)  # type: ignore[attr-defined]
                    continue
                if kind is cst.Dict:
                    stack.extend(
                        e.value
                        for e in expr.elements  # type: ignore[attr-defined]
                        if type(e) is cst.DictElement
                    )
                    continue
                target = self._loss_function(expr, path)
                if target is None:
                    if kind in (cst.Name, cst.Attribute):
                        scan.foreign_losses.append((expr, path, flag))
                    continue
                func, bound = target
                scan.loss_functions.add(id(func))
                params = [p.name.value for p in func.params.params][bound : bound + 2]
                # Keras 2 converts a loss function with autograph (`LossFunctionWrapper`);
                # Keras 3 calls it as it is. Only Keras 3 has the "auto" default.
                context = GraphContext(
                    flag is True,
                    self.keras_major != 3,
                    f"the loss `{_func_name(func)}` of " + _loss_model(flag),
                    frozenset(params),
                    auto_xla=(flag is None and self.keras_auto_jit) or flag == UNKNOWN,
                    root_kind="loss",
                )
                known = scan.roots.get(id(func))
                scan.roots[id(func)] = (func, known[1].merge(context) if known else context)

    def _loss_function(
        self, expr: cst.CSTNode, path: Path
    ) -> tuple[cst.FunctionDef | cst.Lambda, int] | None:
        """The function a `loss=` value calls, and how many leading parameters a
        `partial(f, a, ...)` binds; a name bound to `partial(...)` is followed."""
        kind = type(expr)
        if kind is cst.Name:
            bindings = self.names.lookup(expr.value, path)  # type: ignore[attr-defined]
            if bindings and len(bindings) == 1:
                binding = bindings[0]
                if binding.kind == "def" and type(binding.node) is cst.FunctionDef:
                    return binding.node, 0
                if binding.kind == "assign" and type(binding.node) is cst.Call:
                    return self._loss_function(binding.node, path)
            return None
        if kind is cst.Call and self._spelled(expr.func, "partial"):  # type: ignore[attr-defined]
            if not self.names.resolves_to(expr.func, path, PARTIAL):  # type: ignore[attr-defined]
                return None
            positional = [a for a in expr.args if a.keyword is None]  # type: ignore[attr-defined]
            if not positional or any(a.star for a in positional):
                return None
            inner = self._loss_function(positional[0].value, path)
            if inner is None:
                return None
            return inner[0], inner[1] + len(positional) - 1
        if kind is cst.Lambda:
            return expr, 0  # type: ignore[return-value]
        return None

    def _instance_call(self, expr: cst.CSTNode, path: Path) -> tuple[cst.FunctionDef, bool] | None:
        """`tf.function(model)` for `model = SomeKerasModel()`: the class's `call`."""
        if type(expr) is not cst.Name:
            return None
        bindings = self.names.lookup(expr.value, path)  # type: ignore[attr-defined]
        if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
            return None
        value = bindings[0].node
        if type(value) is not cst.Call or type(value.func) is not cst.Name:
            return None
        classes = self.names.lookup(value.func.value, path)
        if not classes or len(classes) != 1 or classes[0].kind != "class":
            return None
        cls = classes[0].node
        for stmt in cls.body.body:  # type: ignore[union-attr]
            if type(stmt) is cst.FunctionDef and stmt.name.value in ("call", "__call__"):
                return stmt, not self._has_do_not_convert(stmt, path)
        return None

    def _is_dataset(self, receiver: cst.CSTNode, call: cst.Call, path: Path) -> bool:
        """Whether `receiver.map(...)` is a `tf.data` method: the chain starts at `tf.data`,
        the receiver is named like a dataset, or the call passes `num_parallel_calls`."""
        if any(
            a.keyword is not None and a.keyword.value == "num_parallel_calls" for a in call.args
        ):
            return True
        node = receiver
        while True:
            kind = type(node)
            if kind is cst.Call:
                node = node.func  # type: ignore[attr-defined]
            elif kind is cst.Attribute:
                if "dataset" in node.attr.value.lower():  # type: ignore[attr-defined]
                    return True
                node = node.value  # type: ignore[attr-defined]
            elif kind is cst.Name:
                name = node.value.lower()  # type: ignore[attr-defined]
                if "dataset" in name or name in ("ds", "train_ds", "val_ds", "test_ds"):
                    return True
                names = self.names.qualified_names(node, path)
                return bool(names) and all(n.startswith("tensorflow.data") for n in names)
            else:
                return False

    def is_dataset_value(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> bool:
        """`expr` is certainly a `tf.data.Dataset`: a chain of calls that starts at
        `tf.data.*` (`tf.data.Dataset.from_tensor_slices(x).batch(4)`), or a name bound
        only to one."""
        if depth > 4:
            return False
        node = expr
        while type(node) in (cst.Call, cst.Attribute):
            if type(node) is cst.Call:
                node = node.func  # type: ignore[attr-defined]
                continue
            names = canonical(self.names.qualified_names(node, path))
            if names and all(n.startswith("tensorflow.data.") for n in names):
                return True
            node = node.value  # type: ignore[attr-defined]
        if type(node) is not cst.Name or node is not expr:
            return False
        values = self.values.assigned_values(node, path)  # type: ignore[arg-type]
        return bool(values) and all(self.is_dataset_value(v, p, depth + 1) for v, p in values)

    def varying_element_shapes(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> str | None:
        """Why the elements of the dataset `expr` vary in shape from one to the next (a
        `.padded_batch(n)` without fixed `padded_shapes`, `bucket_by_sequence_length`, a
        `from_generator` with a `None` dimension, through shape-keeping transformations
        such as `.prefetch`), or None where they do not or the model cannot tell."""
        node = expr
        while type(node) is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is not cst.Attribute:
                return None
            method = func.attr.value
            if method == "apply":  # ds.apply(tf.data.experimental.bucket_by_sequence_length(..))
                inner = node.args[0].value if node.args else None  # type: ignore[attr-defined]
                if type(inner) is cst.Call and type(inner.func) is cst.Attribute:
                    method, node = inner.func.attr.value, inner
                    if method != "bucket_by_sequence_length":
                        return None
            if method in VARYING_SHAPE_DATASETS:
                return self._varying_source(node, method, path)  # type: ignore[arg-type]
            if method not in SHAPE_KEEPING_DATASET_METHODS:
                return None
            node = func.value
        if type(node) is not cst.Name or depth > 3:
            return None
        values = self.values.assigned_values(node, path)
        if not values:
            return None
        reasons = [self.varying_element_shapes(v, p, depth + 1) for v, p in values]
        return reasons[0] if all(reasons) else None

    def _varying_source(
        self, call: cst.Call, method: str, path: Sequence[cst.CSTNode]
    ) -> str | None:
        """The reason `VARYING_SHAPE_DATASETS` gives for `call`, unless its shapes are fixed
        (`padded_shapes` without `None`) or unknown (a `from_generator` that spells no
        shapes: the generator may well yield one shape)."""
        if method == "from_generator":
            if not self.is_dataset_value(call, path):
                return None
            shapes = [call_argument(call, 2, "output_shapes"),
                      call_argument(call, 4, "output_signature")]  # fmt: skip
            spelled = [self._spelled_value(a.value, path) for a in shapes if a is not None]
            if not any(_has_none(s) for s in spelled):
                return None
            if any("RaggedTensorSpec" in self.module.code_for_node(s) for s in spelled):
                return None  # a ragged spec: one trace for every row length (TF 2.21)
        else:
            position = 1 if method == "padded_batch" else 3
            padded = call_argument(call, position, "padded_shapes")
            if padded is not None and not _has_none(self._spelled_value(padded.value, path)):
                return None  # every batch padded to one shape
        return VARYING_SHAPE_DATASETS[method]

    def _spelled_value(self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> cst.CSTNode:
        """The one value a name is bound to (`signature = (tf.TensorSpec(...), ...)`), else
        `expr` itself."""
        if type(expr) is not cst.Name:
            return expr
        values = self.values.assigned_values(expr, path)
        return values[0][0] if values and len(values) == 1 else expr

    # ----- propagation --------------------------------------------------------------------

    @cached_property
    def contexts(self) -> dict[int, GraphContext]:
        if not self.may_have_graph_code:
            return {}
        scan = self.scan
        contexts: dict[int, GraphContext] = {}
        funcs: dict[int, Func] = {}
        pending: list[int] = []
        # A function decorated with `tf.function` runs its body through its own decorator's
        # autograph setting, whoever calls it: a Keras 3 `call` (not converted) calling it
        # still calls a converted function (observed on TF 2.21 / Keras 3.15).
        own_autograph = {
            id(app.func): app.autograph
            for app, _path in scan.applications
            if type(app.func) is cst.FunctionDef
            and any(d.decorator is app.node for d in app.func.decorators)
        }

        def add(func: Func, context: GraphContext) -> None:
            known = contexts.get(id(func))
            merged = known.merge(context) if known else context
            own = own_autograph.get(id(func))
            if own is not None and merged.autograph != own:
                merged = replace(merged, autograph=own)
            if merged != known:
                contexts[id(func)] = merged
                funcs[id(func)] = func
                pending.append(id(func))

        # Functions switched to eager execution at the module's top: only `tf.data` traces.
        eager = switches_functions_eagerly(self.module, self.names)
        for func, context in scan.roots.values():
            if eager and context.root_kind != "tf.data":
                continue
            add(func, replace(context, root_name=self._root_name(func)))
        # Classes whose instances the module only calls: roots only if a call is graph code.
        called = self.instances_called_directly(scan) if scan.keras_classes else {}
        held: dict[int, list[tuple[cst.FunctionDef, GraphContext]]] = {}
        if scan.keras_classes:
            for method, context in [] if eager else self.keras_contexts(scan):
                cls = self.scan.owner_class.get(id(method))
                if cls is not None and id(cls) in called:
                    held.setdefault(id(cls), []).append((method, context))
                    continue
                add(method, replace(context, root_name=self._root_name(method)))
        keras_methods: dict[int, list[cst.FunctionDef]] = {}
        for cls, method, _kind, _path in scan.keras_methods:
            keras_methods.setdefault(id(cls), []).append(method)
        # `_receive` acts on these two kinds only.
        for record in self.records("graph", "loss"):
            self._receive(record, add, keras_methods)
        while pending or held:
            if not pending:
                # Propagation is done: a held class called in graph code is a root after all.
                for cls_id in [c for c in held if any_in_graph(called[c], contexts)]:
                    for method, context in held.pop(cls_id):
                        rooted = replace(context, root_name=self._root_name(method))
                        # Reached already (made in graph code): the root's context leads,
                        # with its tensor parameters, as when it is added first.
                        known = contexts.pop(id(method), None)
                        add(method, rooted.merge(known) if known is not None else rooted)
                if not pending:
                    break
                continue
            key = pending.pop()
            context = contexts[key]
            helper = replace(context, root=False, tensor_params=frozenset())
            targets: list[tuple[Func, bool]] = []
            for func in scan.nested.get(key, ()):
                targets.append((func, True))
            targets.extend(scan.callbacks.get(key, ()))
            for call, path in scan.calls.get(key, ()):
                target = self.resolve_function(call.func, path)
                if target is not None and not self.in_eager_branch(path):
                    targets.append(target)
            # A Keras layer created in graph code (`Upsample()(x)`) runs its methods there.
            if keras_methods:
                for cls in self._instantiated(scan, funcs[key]):
                    targets.extend((m, True) for m in keras_methods.get(cls, ()))
            for func, converts in targets:
                add(func, helper if converts else replace(helper, autograph=False))
        self._mark_eager_callers(contexts)
        # What is still held runs only eagerly; Keras still casts the inputs of its `call`.
        self.eager_keras = {
            id(method): context for methods in held.values() for method, context in methods
        }
        return contexts

    def _root_name(self, func: Func) -> str:
        """How messages name a graph root: `step`, `Block.call`, `<lambda>`."""
        cls = self.scan.owner_class.get(id(func))
        name = _func_name(func)
        return f"{cls.name.value}.{name}" if cls is not None else name

    def _mark_eager_callers(self, contexts: dict[int, GraphContext]) -> None:
        """`must` false for each helper with a context that eager code also calls: the
        module, a function without a context, an `if tf.executing_eagerly():` branch, or
        (transitively) such a helper. A root (TF calls it) stays `must`."""
        helpers = {key for key, context in contexts.items() if not context.root}
        if not helpers:
            return
        names = {_func_name(self.scan.scopes[key]) for key in helpers}  # type: ignore[arg-type]
        callers: dict[int, list[tuple[int, bool]]] = {}  # helper -> (caller, eager branch)
        for caller, calls in self.scan.calls.items():
            for call, path in calls:
                func = call.func
                named = func.attr if type(func) is cst.Attribute else func  # type: ignore[attr-defined]
                if getattr(named, "value", None) not in names:
                    continue
                target = self.resolve_function(func, path)
                if target is not None and id(target[0]) in helpers:
                    callers.setdefault(id(target[0]), []).append(
                        (caller, self.in_eager_branch(path))
                    )
        # Helpers that eager code of another file calls (its "eager" records).
        eager: set[int] = {
            key
            for key in helpers
            if _func_name(self.scan.scopes[key]) in self._called_eagerly_elsewhere  # type: ignore[arg-type]
            and self.scan.owner.get(key) is self.module
        }
        changed = True
        while changed:
            changed = False
            for key, sites in callers.items():
                if key in eager:
                    continue
                if any(
                    in_branch or caller not in contexts or caller in eager
                    for caller, in_branch in sites
                ):
                    eager.add(key)
                    changed = True
        for key in eager:
            contexts[key] = replace(contexts[key], must=False)

    @cached_property
    def _called_eagerly_elsewhere(self) -> frozenset[str]:
        """Top-level functions that eager code of another file of the run calls."""
        return frozenset(r.function for r in self.records("eager"))

    def _receive(self, record: TfInbound, add, keras_methods) -> None:  # type: ignore[no-untyped-def]
        """What another file of the run says about one of this module's top-level names."""
        context = GraphContext(
            record.xla,
            record.autograph,
            f"{record.origin}, reached from {record.site}",
            root=False,
            auto_xla=record.auto_xla,
        )
        for stmt in self.module.body:
            if type(stmt) is cst.FunctionDef and stmt.name.value == record.function:
                if record.kind == "graph":
                    converts = not self._has_do_not_convert(stmt, [self.module])
                    add(stmt, context if converts else replace(context, autograph=False))
                elif record.kind == "loss":
                    params = [p.name.value for p in stmt.params.params][:2]
                    add(stmt, replace(context, root=True, tensor_params=frozenset(params)))
            elif (
                type(stmt) is cst.ClassDef
                and stmt.name.value == record.function
                and record.kind == "graph"
            ):
                for method in keras_methods.get(id(stmt), ()):
                    add(method, context)


def _loss_model(flag: bool | str | None) -> str:
    """The model a loss given to `compile(loss=...)` belongs to, for messages."""
    if flag is True:
        return "a Keras model compiled with `jit_compile=True`"
    return SWITCH_ORIGIN if flag == UNKNOWN else "a Keras model"


def call_argument(call: cst.Call, position: int, keyword: str) -> cst.Arg | None:
    """The argument passed for parameter `keyword` at `position`, if it can be told."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    positional = [a for a in call.args if a.keyword is None]
    if position < len(positional) and not any(a.star for a in positional[: position + 1]):
        return positional[position]
    return None


def _has_none(node: cst.CSTNode) -> bool:
    """`node` spells `None` somewhere: an unknown dimension in a shape or spec."""
    if type(node) is cst.Name:
        return node.value == "None"  # type: ignore[attr-defined]
    return any(_has_none(child) for child in node.children)


def _dotted_text(module: cst.Module, root: cst.CSTNode) -> str:
    """The source text of an import's dotted name, as `module.code_for_node` gives it: joined
    here when no whitespace or parentheses sit in it (the common case, a codegen spared)."""
    parts: list[str] = []
    node = root
    while type(node) is cst.Attribute:
        dot = node.dot
        if (
            node.lpar
            or node.attr.lpar
            or type(dot) is not cst.Dot
            or type(dot.whitespace_before) is not cst.SimpleWhitespace
            or type(dot.whitespace_after) is not cst.SimpleWhitespace
            or dot.whitespace_before.value
            or dot.whitespace_after.value
        ):
            return module.code_for_node(root)
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or node.lpar:
        return module.code_for_node(root)
    parts.append(node.value)
    return ".".join(reversed(parts))
