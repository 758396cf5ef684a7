"""What XLA refuses, as questions about one call or subscript in graph code: an op with no
XLA kernel (hazards T01, T18), a shape argument that is not a compile-time constant (T03), a
data-dependent output shape (T02). The rules ask them where XLA is certain (JIT202, JIT203)
and where Keras turns it on by itself (JIT213)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import libcst as cst

from jitlint.model.library.tf_facts import XlaSupport, constant_args, op_table
from jitlint.model.tf.api import canonical
from jitlint.model.tf.dtypes import literal_kind
from jitlint.model.tf.values import DYNAMIC_QUOTIENT, DYNAMIC_SIZE, TENSOR, Value, fixed_width
from jitlint.python.binding import Signature, bind_call

_STATEFUL = ("Print", "PyFunc", "EagerPyFunc", "Random", "Read", "Write", "Decode", "Encode")
# Last components of the APIs with arguments XLA needs as compile-time constants (generated
# by scripts/gen_xla_constants.py): a cheap test before name resolution.
SHAPE_LEAVES = frozenset(name.rsplit(".", 1)[-1] for name in constant_args())
NEVER_CONSTANT = {
    "loop": "a loop variable",
    "rng": "a stateful random op",
    DYNAMIC_SIZE: "the size of a tensor whose shape depends on the data (a slice with "
    "loop-carried bounds, tf.unique, tf.boolean_mask, ...)",
    DYNAMIC_QUOTIENT: "a quotient of the size of a tensor whose shape depends on the data (a "
    "slice with loop-carried bounds, tf.unique, tf.boolean_mask, ...): XLA bounds such a "
    "size, or its sums and products, but not a quotient",
}
PER_VALUE = {"param": "an argument of the compiled function", "variable": "a tf.Variable"}


@dataclass(frozen=True)
class Problem:
    """Why XLA cannot compile an op or an argument of it."""

    node: cst.CSTNode
    kind: str  # "no-kernel", "dynamic-output", "never-constant", "per-value", "loop-slice",
    # "loop-shape"
    what: str  # the API or argument, for messages
    detail: str  # the op types, or where the value comes from


@cache
def op_leaves() -> frozenset[str]:
    """Last components of every API in the table: a cheap test before name resolution."""
    return frozenset(name.rsplit(".", 1)[-1] for name in op_table()[1])


def call_leaf(node: cst.Call) -> str | None:
    func = node.func
    kind = type(func)
    if kind is cst.Attribute:
        return func.attr.value  # type: ignore[attr-defined]
    if kind is cst.Name:
        return func.value  # type: ignore[attr-defined]
    return None


def op_problem(ctx, node: cst.Call, path: Sequence[cst.CSTNode]) -> Problem | None:  # type: ignore[no-untyped-def]
    """An op with no XLA kernel, or a data-dependent output shape, created by `node`."""
    leaf = call_leaf(node)
    if leaf is None or leaf not in op_leaves():
        return None
    strings = string_problem(ctx, node, path)
    if strings is not None:
        return strings
    names = canonical(ctx.names.qualified_names(node.func, path))
    _, table = op_table()
    entries = [table.get(name) for name in names]
    if not entries or any(e is None for e in entries):
        return None
    api = min(names).replace("tensorflow.", "tf.", 1)
    if _constant_folded(ctx, node, path, entries):  # type: ignore[arg-type]
        return None
    if all(e.no_kernel_cpu for e in entries):  # type: ignore[union-attr]
        ops = ", ".join(sorted({op for e in entries for op in e.no_kernel_cpu}))  # type: ignore[union-attr]
        return Problem(node, "no-kernel", api, ops)
    if leaf == "repeat":
        return None  # its counts are JIT202's business
    if leaf == "where" and (len(node.args) != 1 or node.args[0].keyword is not None):
        return None  # tf.where(c, x, y) selects elementwise
    if all(e.dynamic_shape for e in entries):  # type: ignore[union-attr]
        return Problem(node, "dynamic-output", api, "")
    return None


def loop_problem(ctx, node: cst.For, path: Sequence[cst.CSTNode]) -> Problem | None:  # type: ignore[no-untyped-def]
    """`for batch in dataset:` over a `tf.data.Dataset`: in graph code autograph turns it
    into dataset ops (`ReduceDataset`, `ScanDataset`, ...), which have no XLA kernel."""
    if ctx.tf.is_dataset_value(node.iter, path):
        return Problem(node.iter, "no-kernel", "iterating a tf.data.Dataset", "dataset ops")
    return None


# The APIs that make a tensor of the data they are given: their positional parameters, and
# the ones that hold the data.
_STRING_DATA = {
    "tensorflow.where": (Signature(("condition", "x", "y", "name")), ("x", "y")),
    "tensorflow.fill": (Signature(("dims", "value", "name")), ("value",)),
}


def string_problem(ctx, node: cst.Call, path: Sequence[cst.CSTNode]) -> Problem | None:  # type: ignore[no-untyped-def]
    """`tf.where(c, "yes", "no")`: a string tensor computed from data; XLA has no kernels
    for DT_STRING (hazards T18)."""
    if call_leaf(node) not in ("where", "fill"):
        return None
    names = canonical(ctx.names.qualified_names(node.func, path))
    slots = {_STRING_DATA.get(n) for n in names}
    if len(slots) != 1 or None in slots:
        return None
    if any(a.star for a in node.args):
        return None
    signature, data = next(iter(slots))  # type: ignore[misc]
    arguments = bind_call(signature, node).arguments
    for parameter in data:
        if type(arguments.get(parameter)) in (cst.SimpleString, cst.ConcatenatedString):
            api = min(names).replace("tensorflow.", "tf.", 1)
            return Problem(node, "no-kernel", api, "a string tensor (DT_STRING)")
    return None


def _constant_folded(
    ctx,
    node: cst.Call,
    path: Sequence[cst.CSTNode],
    entries: list[XlaSupport],  # type: ignore[no-untyped-def]
) -> bool:
    """TensorFlow folds a stateless op whose inputs are all literals before XLA sees it
    (`tf.unravel_index([3], [2, 2])` compiles, observed)."""
    if not node.args or any(op.startswith(_STATEFUL) for e in entries for op in e.no_kernel_cpu):
        return False
    values = ctx.tf.values
    return all(literal_kind(a.value, values, path) is not None for a in node.args)


def shape_problems(ctx, node: cst.Call, path: Sequence[cst.CSTNode]) -> list[Problem]:  # type: ignore[no-untyped-def]
    """Shape/size/axis arguments of `node` that XLA needs as compile-time constants and
    that are not: fed by a loop variable or stateful random op (never constant), or
    computed from the compiled function's data (constant per value: recompiles)."""
    if call_leaf(node) not in SHAPE_LEAVES:
        return []
    from jitlint.model.tf.model import call_argument  # the model imports this module

    names = canonical(ctx.names.qualified_names(node.func, path))
    table = constant_args()
    slots = {table.get(n, ()) for n in names}
    if len(slots) != 1 or not next(iter(slots)):
        return []
    api = min(names).replace("tensorflow.", "tf.", 1)
    values = ctx.tf.values
    found = []
    for slot in next(iter(slots)):
        arg = call_argument(node, slot.position, slot.keyword)
        if arg is None:
            continue
        value = values.value(arg.value, path)
        what = f"`{slot.keyword}` of `{api}`"
        problem = value_problem(arg.value, value, what, slot.bounded)
        if problem is not None:
            found.append(problem)
    return found


def value_problem(
    node: cst.CSTNode, value: Value, what: str, bounded: bool = False
) -> Problem | None:
    """`bounded`: the argument may be a bounded dynamic size (`ConstantArg.bounded`)."""
    never = sorted(
        name
        for name in (o.split(":", 1)[0] for o in value.origins)
        if name in NEVER_CONSTANT and not (bounded and name == DYNAMIC_SIZE)
    )
    if never and value.kind == TENSOR:  # UNKNOWN (e.g. `i if flag else 2`) never errs
        return Problem(node, "never-constant", what, NEVER_CONSTANT[never[0]])
    if value.kind == TENSOR and value.origins & PER_VALUE.keys():
        return Problem(node, "per-value", what, PER_VALUE[min(value.origins & PER_VALUE.keys())])
    return None


def slice_problems(ctx, node: cst.Subscript, path: Sequence[cst.CSTNode]) -> list[Problem]:  # type: ignore[no-untyped-def]
    """Slice bounds whose distance changes with a loop variable (a dynamic shape), or that
    are computed from the compiled function's data (recompiles per value)."""
    values = ctx.tf.values
    if _reduced_at_once(path):
        return []
    for element in node.slice:
        piece = element.slice
        if type(piece) is not cst.Slice or fixed_width(piece):
            continue
        for bound in (piece.lower, piece.upper):
            if bound is None:
                continue
            value = values.value(bound, path)
            if value.kind == TENSOR and value.origins & NEVER_CONSTANT.keys():
                return [Problem(bound, "loop-slice", "slice bound", "a loop variable")]
            if value.kind == TENSOR and value.origins & PER_VALUE.keys():
                return [Problem(bound, "per-value", "slice bound", "the function's data")]
    return []


# `tf.slice(x, begin, size)`: XLA takes a computed `size` (it is not in the generated table of
# compile-time constants), but one that changes with a loop variable gives the slice a
# dynamic shape, as `x[i : i + n]` with a loop-carried `n` does.
_SLICE_SIZE = {"tensorflow.slice": (2, "size"), "tensorflow.compat.v1.slice": (2, "size")}


def slice_call_problems(ctx, node: cst.Call, path: Sequence[cst.CSTNode]) -> list[Problem]:  # type: ignore[no-untyped-def]
    """`tf.slice` whose size changes with a loop variable: the same dynamic shape as a
    Python slice whose width does (`slice_problems`)."""
    if call_leaf(node) != "slice" or _reduced_at_once(path):
        return []
    from jitlint.model.tf.model import call_argument  # the model imports this module

    names = canonical(ctx.names.qualified_names(node.func, path))
    slots = {_SLICE_SIZE.get(n) for n in names}
    if len(slots) != 1 or None in slots:
        return []
    arg = call_argument(node, *next(iter(slots)))  # type: ignore[misc]
    if arg is None:
        return []
    value = ctx.tf.values.value(arg.value, path)
    if value.kind == TENSOR and value.origins & NEVER_CONSTANT.keys():
        return [Problem(arg.value, "loop-slice", "slice size", "a loop variable")]
    return []


# Where a loop states that its variables' shapes change: `shape_invariants=` with an unknown
# dimension. Graph mode runs such a loop; XLA refuses it ("Input and output shapes of loop
# body do not match", observed with TensorFlow 2.21 XLA:CPU for both spellings).
# The loop APIs that take `shape_invariants`, as messages spell them, with their positional
# parameters up to it.
_WHILE_LOOP = Signature(("cond", "body", "loop_vars", "shape_invariants"), var_keyword="options")
_SET_LOOP_OPTIONS = Signature(
    ("parallel_iterations", "swap_memory", "maximum_iterations", "shape_invariants"),
    var_keyword="options",
)
_SHAPE_INVARIANTS = {
    "tensorflow.while_loop": ("tf.while_loop", _WHILE_LOOP),
    "tensorflow.compat.v1.while_loop": ("tf.while_loop", _WHILE_LOOP),
    "tensorflow.autograph.experimental.set_loop_options": ("set_loop_options", _SET_LOOP_OPTIONS),
}


def loop_shape_problem(ctx, node: cst.Call, path: Sequence[cst.CSTNode]) -> Problem | None:  # type: ignore[no-untyped-def]
    """`shape_invariants=` with a `None` dimension written in it: a loop variable whose
    shape changes between iterations, which XLA cannot compile."""
    if call_leaf(node) not in ("while_loop", "set_loop_options"):
        return None
    names = canonical(ctx.names.qualified_names(node.func, path))
    apis = {_SHAPE_INVARIANTS.get(n) for n in names}
    if len(apis) != 1 or None in apis:
        return None
    spelled, signature = next(iter(apis))  # type: ignore[misc]
    invariants = bind_call(signature, node).arguments.get("shape_invariants")
    if invariants is None or not _has_none(invariants):
        return None
    return Problem(invariants, "loop-shape", spelled, "")


def _has_none(node: cst.CSTNode) -> bool:
    """A literal `None` anywhere in `node` (`tf.TensorShape([None, 4])`, `[None]`)."""
    if type(node) is cst.Name:
        return node.value == "None"  # type: ignore[attr-defined]
    return any(_has_none(child) for child in node.children)


_FULL_REDUCTIONS = frozenset(
    {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
     "reduce_all", "reduce_logsumexp", "reduce_std", "reduce_variance", "norm"}
)  # fmt: skip
_ELEMENTWISE = frozenset(
    {"square", "abs", "exp", "log", "sqrt", "cast", "sigmoid", "tanh", "relu", "multiply",
     "add", "subtract", "divide", "maximum", "minimum", "pow", "negative"}
)  # fmt: skip


def _reduced_at_once(path: Sequence[cst.CSTNode]) -> bool:
    """The slice (the end of `path`) is consumed where it stands: through elementwise ops
    into a reduction over all axes, whose scalar result has a static shape. A slice that is
    bound to a name, returned or passed on may reach ops that need its size."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        kind = type(node)
        if kind in (cst.BinaryOperation, cst.UnaryOperation, cst.Arg):
            continue
        if kind is not cst.Call:
            return False
        leaf = call_leaf(node)  # type: ignore[arg-type]
        args = node.args  # type: ignore[attr-defined]
        if leaf in _FULL_REDUCTIONS:
            return len(args) == 1 and args[0].keyword is None
        if leaf not in _ELEMENTWISE:
            return False
    return False


def ragged_problems(ctx, node: cst.Call, path: Sequence[cst.CSTNode]) -> list[Problem]:  # type: ignore[no-untyped-def]
    """A reduction of a RaggedTensor made from data: under XLA its row ranges need sizes
    that are not compile-time constants (observed: `tf.reduce_mean` of
    `tf.ragged.boolean_mask(x, m)` fails with "Range must be a compile-time constant")."""
    if call_leaf(node) is None or not call_leaf(node).startswith("reduce_") or not node.args:  # type: ignore[union-attr]
        return []
    names = canonical(ctx.names.qualified_names(node.func, path))
    if not names or not all(n.startswith("tensorflow.") for n in names):
        return []
    values = ctx.tf.values
    value = values.value(node.args[0].value, path)
    out = []
    for origin in sorted(value.origins):
        if origin.startswith("ragged@"):
            source = values.sources.get(int(origin[len("ragged@") :]))
            if source is not None:
                api = min(names).replace("tensorflow.", "tf.", 1)
                out.append(Problem(source, "ragged", api, ""))
    return out
