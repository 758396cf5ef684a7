"""What a `tf.function` application says: its options, and the graph context it opens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import libcst as cst

from jitlint.model.tf.api import RUN_FUNCTIONS_EAGERLY
from jitlint.model.tf_records import decode_arguments
from jitlint.python.binding import Bound, Signature, bind, bind_call
from jitlint.python.names import Names

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


def graph_defaults(
    func: cst.FunctionDef,
    calls: Sequence[tuple[cst.Call, int]],
    statuses: Sequence[str],
) -> Bound[cst.BaseExpression] | None:
    """What every graph call of the helper `func` leaves it: its parameters with a default
    that no call fills, at that default (a `binding.may_reach` bound: `if verbose:` with
    `verbose=False` decides against its body on every graph path). `calls`: this module's
    graph calls, with the receivers each binds (1 for `self.f(...)`); `statuses`: the
    arguments of other files' "graph" records. None when no call is known, or one cannot be
    read: a record without arguments, a star argument that may fill any parameter."""
    if not calls and not statuses:
        return None
    signature = Signature.of(func)
    bounds = [bind_call(Signature.of(func, receivers), call) for call, receivers in calls]
    for status in statuses:
        args = decode_arguments(status) if status else None
        if args is None:
            return None
        bounds.append(bind(signature, [(keyword, None) for keyword, _ in args]))
    passed: set[str] = set()
    for bound in bounds:
        if bound.open_positional or bound.open_keywords or bound.floating:
            return None
        passed.update(bound.arguments)
        passed.update(bound.uncertain)
    left = bind(signature, [])
    return replace(
        left,
        arguments={},
        defaulted={k: v for k, v in left.defaulted.items() if k not in passed},
    )


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
