"""What a `tf.function` application says: its options, and the graph context it opens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import libcst as cst

from jitlint.model.tf.api import RUN_FUNCTIONS_EAGERLY
from jitlint.model.tf_records import decode_arguments
from jitlint.python.binding import (
    Bound,
    Signature,
    agreed_value,
    bind,
    bind_call,
    known_arguments,
    literal_value,
    may_reach,
)
from jitlint.python.names import Names
from jitlint.python.uses import bound_names, calls_of_name

Func = cst.FunctionDef | cst.Lambda


@dataclass(frozen=True)
class GraphContext:
    """How a function body runs: always as graph code, maybe under XLA."""

    xla: bool
    autograph: bool
    origin: str  # for messages: "`@tf.function(jit_compile=True)`", ...
    # Parameters that are certainly tensors (input_signature, a Keras layer's inputs).
    tensor_params: frozenset[str] = frozenset()
    # True for the function TF calls itself (its parameters are the traced arguments).
    root: bool = True
    # Run by a Keras model left at the default `jit_compile="auto"`: Keras 3 compiles it with
    # XLA where a GPU or TPU is present, and not on a CPU-only machine (hazards T19).
    auto_xla: bool = False
    # The path this context names: the kind of graph root ("tf.function", "tf.data",
    # "keras", "loss"; "" for a root in another file, which `origin` names) and the function
    # TF calls there (`step`, `Block.call`, `<lambda>`).
    root_kind: str = ""
    root_name: str = ""
    # May / must: a function with a context MAY run as graph code; it MUST when TF calls it
    # itself or every caller the run shows is graph code. False for a helper that eager code
    # calls too (module level, a plain function, an `if tf.executing_eagerly():` branch):
    # a graph-only hazard holds there only on the graph path.
    must: bool = True
    # The module-level Keras class of this file whose method the code runs in (directly or
    # through helpers of the file); None when that is not one class: where a fix can turn
    # XLA off for the code (`self.supports_jit = False`).
    layer: str | None = None
    # Graph code only by Keras' contract: every root it comes from is a Keras class that no
    # file of the run is seen to use (a library class, run by its users' models). Reports
    # in such code say `traced_by: "contract"`, as JAX's contract-traced ones do. A context
    # received from another file is not counted so (its record does not say).
    assumed: bool = False

    def merge(self, other: GraphContext) -> GraphContext:
        """A helper reached from two graph contexts: hazards of either apply."""
        stronger = _stronger(self, other)
        return replace(
            self,
            xla=self.xla or other.xla,
            auto_xla=self.auto_xla or other.auto_xla,
            autograph=self.autograph and other.autograph,
            origin=stronger.origin,
            root_kind=stronger.root_kind,
            root_name=stronger.root_name,
            layer=self.layer if self.layer == other.layer else None,
            assumed=self.assumed and other.assumed,
        )


def _stronger(a: GraphContext, b: GraphContext) -> GraphContext:
    """The context whose origin explains the most: forced XLA, then auto XLA, then graph."""
    rank_a, rank_b = (a.xla, a.auto_xla), (b.xla, b.auto_xla)
    return a if rank_a >= rank_b else b


@dataclass(frozen=True)
class TfFunction:
    """A `tf.function` application: `@tf.function(...)` or `tf.function(f, ...)`."""

    node: cst.CSTNode  # the decorator expression or the call
    func: Func | None
    xla: bool | None  # None: jit_compile given but not a literal
    autograph: bool
    input_signature: bool
    reduce_retracing: bool


def _literal_bool(node: cst.BaseExpression) -> bool | None:
    if type(node) is cst.Name and node.value in ("True", "False"):
        return node.value == "True"
    return None


def tf_function_options(args: Sequence[cst.Arg]) -> tuple[bool | None, bool, bool, bool]:
    """(xla, autograph, input_signature, reduce_retracing) from `tf.function` keywords."""
    xla: bool | None = False
    autograph = True
    signature = retracing = False
    for arg in args:
        if arg.keyword is None:
            continue
        key = arg.keyword.value
        if key in ("jit_compile", "experimental_compile"):
            if type(arg.value) is cst.Name and arg.value.value == "None":
                xla = False  # None: TF's default, i.e. no forced XLA
            else:
                xla = _literal_bool(arg.value)
        elif key == "autograph":
            autograph = _literal_bool(arg.value) is not False
        elif key == "input_signature":
            signature = not (type(arg.value) is cst.Name and arg.value.value == "None")
        elif key in ("reduce_retracing", "experimental_relax_shapes"):
            retracing = _literal_bool(arg.value) is not False
    return xla, autograph, signature, retracing


def signature_params(app: TfFunction, func: Func, receivers: int) -> frozenset[str]:
    """The parameters of `func` that `app`'s `input_signature` makes tensors: TF binds its
    specs to the leading parameters after the receiver (`self`), so where the signature
    is a written-out list or tuple only as many as it has entries; those after them keep
    their Python defaults (`input_signature=[]` on `def f(self, index=0)`: `index` is the
    int 0 in every trace). Where its length is not written out, every parameter after the
    receiver."""
    params = [p.name.value for p in func.params.params][receivers:]
    node = app.node
    spec = None
    if type(node) is cst.Call:
        spec = next(
            (a.value for a in node.args if a.keyword and a.keyword.value == "input_signature"),
            None,
        )
    if type(spec) in (cst.List, cst.Tuple) and not any(
        type(e) is cst.StarredElement
        for e in spec.elements  # type: ignore[union-attr]
    ):
        params = params[: len(spec.elements)]  # type: ignore[union-attr]
    return frozenset(params)


def graph_origin(app: TfFunction) -> str:
    if app.xla:
        return "`tf.function(jit_compile=True)`"
    if not app.autograph:
        return "`tf.function(autograph=False)`"
    return "`tf.function`"


def graph_path_note(context: GraphContext) -> str:
    """For a message about graph-only behaviour in a helper: the graph path it holds on.
    A helper that also runs eagerly (`context.must` false): " when called from `step`";
    one that runs only as graph code, under a root its origin does not name (a
    `tf.function` or `tf.data` function): " (through `step`)". Nothing for a root itself,
    a root of another file (its origin names the site), or an origin that names the root."""
    name = context.root_name
    if context.root or not name:
        return ""
    if not context.must:
        return f" when called from `{name}`"
    if context.root_kind in ("tf.function", "tf.data"):
        return f" (through `{name}`)"
    return ""


def graph_site(context: GraphContext) -> str:
    """The graph context as a message names it: its origin and the path's root, where the
    origin leaves it out (`in `tf.function` when called from `step``)."""
    return context.origin + graph_path_note(context)


class GraphArguments:
    """What the graph paths give a function's parameters, as far as literals go: one
    `binding.Bound` per graph call of a helper (this module's, with its literal arguments,
    and those it forwards from its own caller, `f(verbose=verbose)`, where every graph path
    of that caller gives the name one literal; and other files' "graph" records, whose
    facts carry such literals), or per call of a `tf.function` root whose every call the
    module shows. `model` answers `contexts`, `graph_sites(func)`, `graph_records(func)`
    and `scope_path(func)` (the TF model)."""

    def __init__(self, model: GraphSource) -> None:
        self.model = model
        self._memo: dict[int, list[Bound[cst.BaseExpression]] | None] = {}
        self._rebound: dict[int, frozenset[str]] = {}

    def rebound(self, func: cst.FunctionDef) -> frozenset[str]:
        """The names `func` binds in its body (python/uses.py `bound_names`)."""
        key = id(func)
        found = self._rebound.get(key)
        if found is None:
            found = self._rebound[key] = frozenset(bound_names(func.body))
        return found

    def decides_against(self, func: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        """Every graph path of `func` takes the other branch of an `if` around the end of
        `path` (or leaves its block before it): python/binding.py `may_reach` for each."""
        if type(func) is not cst.FunctionDef:
            return False
        bounds = self.bounds(func)
        if not bounds:
            return False
        rebound = self.rebound(func)
        return all(not may_reach(func, bound, path, rebound) for bound in bounds)

    def bounds(self, func: cst.FunctionDef) -> list[Bound[cst.BaseExpression]] | None:
        """One bound per graph call of `func` (None where a call is unknown or cannot be
        read: a star argument that may fill any parameter, a record without arguments)."""
        key = id(func)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # a recursive call of its own knows nothing
        found = self._bounds(func)
        if found is not None and not any(b.arguments or b.defaulted for b in found):
            found = None  # no literal decides a test
        self._memo[key] = found
        return found

    def literal(
        self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> cst.BaseExpression | None:
        """The literal `expr`, read at the end of `path` in graph code, has on every graph
        path: itself when it is one, or a parameter of the function around it that the
        function never rebinds and that every graph call gives one literal."""
        if literal_value(expr)[0]:
            return expr
        if type(expr) is not cst.Name:
            return None
        func = next(
            (n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda, cst.ClassDef)),
            None,
        )
        if type(func) is not cst.FunctionDef:
            return None
        name = expr.value  # type: ignore[attr-defined]
        if name not in Signature.of(func).names or name in self.rebound(func):
            return None
        bounds = self.bounds(func)
        return agreed_value(bounds, name) if bounds else None

    def _bounds(self, func: cst.FunctionDef) -> list[Bound[cst.BaseExpression]] | None:
        context = self.model.contexts.get(id(func))
        if context is None:
            return None
        if context.root:
            return self._root_bounds(func, context)
        bounds: list[Bound[cst.BaseExpression]] = []
        for call, path, receivers in self.model.graph_sites(func):
            bound = bind_call(Signature.of(func, receivers), call)
            bounds.append(known_arguments(bound, lambda _name, e, p=path: self.literal(e, p)))
        signature = Signature.of(func)
        for status in self.model.graph_records(func):
            args = decode_arguments(status) if status else None
            if args is None:
                return None
            facts = bind(signature, args)
            bounds.append(known_arguments(facts, lambda _name, fact: fact_literal(fact)))
        return _readable(bounds)

    def _root_bounds(
        self, func: cst.FunctionDef, context: GraphContext
    ) -> list[Bound[cst.BaseExpression]] | None:
        """A `tf.function` decorating a function of a module or of a function: its calls
        there, with their literal arguments, when they are all it gets (the name is only
        called, also through a dict of functions that is only iterated)."""
        if context.root_kind != "tf.function" or not func.decorators:
            return None
        path = self.model.scope_path(func)
        outer = path[-2] if len(path) > 1 else None
        if type(outer) is cst.IndentedBlock and len(path) > 2:
            outer = path[-3]
        if type(outer) not in (cst.FunctionDef, cst.Module):
            return None
        scope = outer.body if type(outer) is cst.FunctionDef else outer  # type: ignore[union-attr]
        calls = calls_of_name(scope, func.name.value, func.name)  # type: ignore[arg-type]
        if calls is None:
            return None
        signature = Signature.of(func)
        return _readable(
            [
                known_arguments(
                    bind_call(signature, c), lambda _n, e: e if literal_value(e)[0] else None
                )
                for c in calls
            ]
        )


class GraphSource(Protocol):
    """What `GraphArguments` asks of the TF model."""

    @property
    def contexts(self) -> dict[int, GraphContext]: ...

    def graph_sites(
        self, func: cst.FunctionDef
    ) -> Sequence[tuple[cst.Call, Sequence[cst.CSTNode], int]]: ...

    def graph_records(self, func: cst.FunctionDef) -> list[str]: ...

    def scope_path(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]: ...


def _readable(bounds: list[Bound[cst.BaseExpression]]) -> list[Bound[cst.BaseExpression]] | None:
    if not bounds or any(b.open_positional or b.open_keywords or b.floating for b in bounds):
        return None
    return bounds


LITERAL_FACT = "py="  # a "graph" record's fact of a Python literal: "py=False"


def literal_fact(expr: cst.BaseExpression) -> str:
    """The fact of a literal argument, for a "graph" record."""
    return LITERAL_FACT + cst.Module([]).code_for_node(expr)


def fact_literal(fact: str) -> cst.BaseExpression | None:
    """The literal a record's fact gives, or None."""
    if not fact.startswith(LITERAL_FACT):
        return None
    try:
        expr = cst.parse_expression(fact[len(LITERAL_FACT) :])
    except cst.ParserSyntaxError:
        return None
    return expr if literal_value(expr)[0] else None


def switches_functions_eagerly(module: cst.Module, names: Names) -> bool:
    """The module's last top-level `tf.config.run_functions_eagerly(...)` statement, outside
    any branch, passes `True`: once the module is imported (and it runs whenever its functions
    can be called), every `tf.function`, Keras' own train/test/predict functions included,
    runs its Python eagerly; `tf.data` functions are still traced (observed on TF 2.21 /
    Keras 3.15). A switch in a branch, a function or with another argument decides nothing."""
    last = None
    for stmt in module.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            call = small.value if type(small) is cst.Expr else None
            if type(call) is cst.Call and names.resolves_to(
                call.func, (module,), RUN_FUNCTIONS_EAGERLY
            ):
                args = call.args
                last = (
                    len(args) == 1
                    and args[0].keyword is None
                    and type(args[0].value) is cst.Name
                    and args[0].value.value == "True"
                )
    return bool(last)
