"""`tf.cond` branches whose results have different shapes: under XLA the conditional's result
then gets a bounded dynamic dimension (observed on TensorFlow 2.21 XLA:CPU: the cond itself
compiles, and a later `tf.signal.fft2d` fails with 'Asked to propagate a dynamic dimension ...
which is not implemented').

Only what the source proves is reported: one branch returns a value `x` unchanged and the
other returns `x` grown by `tf.repeat`/`tf.tile`/`tf.concat`/`tf.pad` (whose size along an
axis is then not `x`'s), or the two results have static shapes the source states
(below) that differ along an axis: two different literal sizes, or a literal size
against what a `-1` leaves in `tf.reshape`. Branches whose shapes the model cannot compare
say nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.model.tf.api import canonical

CONDS = frozenset({"tensorflow.cond", "tensorflow.compat.v1.cond"})
# The ops that return their first argument with a different size along some axis, and the
# argument that says by how much: a literal that keeps the size (1 repeat, all-ones
# multiples, zero padding) proves nothing.
_GROWERS = {
    "tensorflow.repeat": (1, "repeats"),
    "tensorflow.tile": (1, "multiples"),
    "tensorflow.pad": (1, "paddings"),
    "tensorflow.concat": (0, "values"),
}


@dataclass(frozen=True)
class BranchMismatch:
    """Two branches of a conditional that give a value different shapes."""

    grown: str  # the branch that changes the size, as written
    kept: str  # the branch that returns the value unchanged
    op: str  # "tf.repeat", ...; "" when the static shapes differ
    value: str  # the value's name; for static shapes, how they differ

    @property
    def detail(self) -> str:
        """How the branches differ, for a message."""
        if not self.op:
            return self.value
        return (
            f"`{self.grown}` returns `{self.value}` grown by `{self.op}`, `{self.kept}` "
            f"returns `{self.value}` as it is"
        )


def cond_mismatch(ctx, call: cst.Call, path: Sequence[cst.CSTNode]) -> BranchMismatch | None:  # type: ignore[no-untyped-def]
    """The mismatch of `call` when it is a `tf.cond` whose branches provably differ."""
    from jitlint.model.tf.model import call_argument  # the model imports this package

    if not (canonical(ctx.names.qualified_names(call.func, path)) & CONDS):
        return None
    branches = [call_argument(call, 1, "true_fn"), call_argument(call, 2, "false_fn")]
    results = []
    functions = []
    for arg in branches:
        if arg is None:
            return None
        found = ctx.tf.resolve_function(arg.value, path)
        returned = _single_return(found[0]) if found else None
        if returned is None:
            return None
        results.append((ctx.module.code_for_node(arg.value), returned))
        functions.append(found[0])  # type: ignore[index]
    for (grown_name, grown), (kept_name, kept) in (results, results[::-1]):
        if type(kept) is not cst.Name or type(grown) is not cst.Call:
            continue
        op = _growing_op(ctx, grown, kept.value, path)
        if op is not None:
            return BranchMismatch(grown_name, kept_name, op, kept.value)
    return _static_mismatch(ctx, call, path, results, functions)


def _static_mismatch(ctx, call, path, results, functions) -> BranchMismatch | None:  # type: ignore[no-untyped-def]
    """Branches whose results have static shapes that the source states and that differ."""
    shapes = []
    for (_, returned), func in zip(results, functions, strict=True):
        if type(func) is cst.Lambda:
            arg = next((a for a in call.args if a.value is func), None)
            if arg is None:
                return None  # a lambda inside a wrapper: its path is not followed here
            shapes.append(static_shape(ctx, returned, (*path, call, arg, func)))
            continue
        body = func.body.body  # type: ignore[attr-defined]
        last = body[-1] if body else None
        if type(last) is not cst.SimpleStatementLine:
            return None
        base = ctx.tf.scope_path(func)
        shapes.append(static_shape(ctx, returned, (*base, func.body, last, last.body[-1])))
    axis = differing_dim(shapes[0], shapes[1])
    if axis is None:
        return None
    (first, _), (second, _) = results
    if axis < 0:
        how = (
            f"`{first}` returns a tensor of rank {len(shapes[0])}, `{second}` one of rank "  # type: ignore[arg-type]
            f"{len(shapes[1])}"  # type: ignore[arg-type]
        )
    else:
        how = (
            f"along axis {axis}, `{first}` returns {describe(shapes[0][axis])} and "  # type: ignore[index]
            f"`{second}` {describe(shapes[1][axis])}"  # type: ignore[index]
        )
    return BranchMismatch(first, second, "", how)


def _single_return(func: cst.CSTNode) -> cst.BaseExpression | None:
    """What `func` returns, when it is one expression: a lambda's body, or a def whose only
    `return` is its last statement."""
    if type(func) is cst.Lambda:
        return func.body  # type: ignore[attr-defined]
    body = func.body.body  # type: ignore[attr-defined]
    if not body:
        return None
    returns = [s for s in _statements(func.body) if type(s) is cst.Return]
    last = body[-1]
    if len(returns) == 1 and type(last) is cst.SimpleStatementLine and last.body[-1] is returns[0]:
        return returns[0].value  # type: ignore[attr-defined]
    return None


def _statements(block: cst.CSTNode) -> list[cst.CSTNode]:
    """Every small statement in `block`, nested blocks included, not nested functions."""
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [block]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda) and node is not block:
            continue
        if kind is cst.SimpleStatementLine:
            out.extend(node.body)  # type: ignore[attr-defined]
            continue
        stack.extend(node.children)
    return out


def _growing_op(ctx, call: cst.Call, name: str, path: Sequence[cst.CSTNode]) -> str | None:  # type: ignore[no-untyped-def]
    """`tf.repeat(name, k)`-like: the op, when `call` returns `name` with another size."""
    from jitlint.model.tf.model import call_argument

    names = canonical(ctx.names.qualified_names(call.func, path))
    if len(names) != 1 or next(iter(names)) not in _GROWERS:
        return None
    api = next(iter(names))
    position, keyword = _GROWERS[api]
    if api == "tensorflow.concat":
        values = call_argument(call, 0, "values")
        if values is None or type(values.value) not in (cst.List, cst.Tuple):
            return None
        items = [e.value for e in values.value.elements]  # type: ignore[attr-defined]
        if len(items) < 2 or not any(type(i) is cst.Name and i.value == name for i in items):
            return None
        return "tf.concat"
    first = call_argument(call, 0, "input" if api != "tensorflow.pad" else "tensor")
    amount = call_argument(call, position, keyword)
    if first is None or amount is None:
        return None
    if type(first.value) is not cst.Name or first.value.value != name:
        return None
    if _keeps_size(amount.value, api):
        return None
    return api.replace("tensorflow.", "tf.", 1)


def _keeps_size(expr: cst.BaseExpression, api: str) -> bool:
    """A literal amount that leaves the size as it is: 1 repeat, all-ones multiples, zero
    padding (nested lists)."""
    keep = "0" if api == "tensorflow.pad" else "1"
    literals: list[str] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Integer:
            literals.append(node.value)  # type: ignore[attr-defined]
        elif kind in (cst.List, cst.Tuple):
            stack.extend(e.value for e in node.elements)  # type: ignore[attr-defined]
        else:
            return False  # not a literal: may change the size
    return bool(literals) and all(v == keep for v in literals)


# ----- static shapes ----------------------------------------------------------------------
# Static shapes of TF tensors where the source states them: a tensor made with a literal
# shape (`tf.zeros((1, n, n, 1))`), reshaped, transposed, reduced with `keepdims`, carried by
# a `tf.while_loop` (its `shape_invariants`), or returned by a module helper, read per call
# site (the helper's parameters stand for the arguments of that one call).
#
# A dimension is an `int` (a literal size), a `Sym` (a size named by a variable: two
# dimensions are the same size when they name the same binding), `REST` (what a `-1` leaves
# in `tf.reshape`: the element count divided by the other sizes, so it follows the data's
# size) or None (not known). A shape is a tuple of dimensions, or None when even the rank is
# not known. Nothing is guessed: what the model cannot follow is None.

Path = Sequence[cst.CSTNode]
_DEPTH = 6  # helpers inside helpers followed at most this deep


@dataclass(frozen=True)
class Sym:
    """A name, as bound in one scope."""

    name: str
    scope: int  # id of the scope node that binds the name


class _Rest:
    def __repr__(self) -> str:
        return "REST"


REST = _Rest()
Dim = int | Sym | _Rest | None
Shape = tuple[Dim, ...] | None
# A call's parameters bound to the arguments of one call site: name -> (argument, its path,
# the caller's own bindings).
Env = dict[str, tuple[cst.BaseExpression, Path, "Env"]]

_MAKERS = {
    f"tensorflow.{op}" for op in ("zeros", "ones", "fill", "random.normal", "random.uniform")
}
_LIKE = {f"tensorflow.{op}" for op in ("zeros_like", "ones_like", "identity", "stop_gradient")}
_REDUCE = {
    f"tensorflow.{p}reduce_{op}"
    for p in ("", "math.")
    for op in ("sum", "mean", "max", "min", "prod", "any", "all", "logsumexp")
}
_CROP_OR_PAD = {"tensorflow.image.resize_with_crop_or_pad"}
_WHILE = {"tensorflow.while_loop", "tensorflow.compat.v1.while_loop"}


def static_shape(ctx, expr: cst.BaseExpression, path: Path, env: Env | None = None) -> Shape:  # type: ignore[no-untyped-def]
    """The static shape of `expr` at the end of `path`, when the source states it."""
    return _Shapes(ctx).shape(expr, path, env or {}, 0)


def describe(dim: Dim) -> str:
    if isinstance(dim, int):
        return f"size {dim}"
    if isinstance(dim, Sym):
        return f"`{dim.name}`"
    if dim is REST:
        return "the size a `-1` leaves in `tf.reshape` (it follows the data's size)"
    return "not known"


def differing_dim(first: Shape, second: Shape) -> int | None:
    """The first axis on which two shapes provably differ: two different literal sizes, or
    a literal size against the rest of a reshape (which follows the data). Ranks must be
    known and equal; a different rank is reported as axis -1."""
    if first is None or second is None:
        return None
    if len(first) != len(second):
        return -1
    for axis, (a, b) in enumerate(zip(first, second, strict=True)):
        if isinstance(a, int) and isinstance(b, int) and a != b:
            return axis
        if (a is REST and isinstance(b, int)) or (b is REST and isinstance(a, int)):
            return axis
    return None


class _Shapes:
    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        self.ctx = ctx
        self.names = ctx.names
        self.model = ctx.tf

    def qualified(self, func: cst.BaseExpression, path: Path) -> frozenset[str]:
        if type(func) not in (cst.Name, cst.Attribute):
            return frozenset()
        return canonical(self.names.qualified_names(func, path))

    # ----- shapes -----------------------------------------------------------------------

    def shape(self, expr: cst.BaseExpression, path: Path, env: Env, depth: int) -> Shape:
        if depth > _DEPTH:
            return None
        kind = type(expr)
        if kind is cst.Name:
            return self._name(expr, path, env, depth)  # type: ignore[arg-type]
        if kind is cst.Call:
            return self._call(expr, path, env, depth)  # type: ignore[arg-type]
        if kind is cst.Subscript and len(expr.slice) == 1:  # type: ignore[attr-defined]
            index = expr.slice[0].slice  # type: ignore[attr-defined]
            inner = expr.value  # type: ignore[attr-defined]
            if (
                type(index) is cst.Index
                and type(index.value) is cst.Integer
                and type(inner) is cst.Call
                and self.qualified(inner.func, path) & _WHILE
            ):
                return self._loop_result(inner, int(index.value.value, 0), path, env, depth)
        return None

    def _name(self, name: cst.Name, path: Path, env: Env, depth: int) -> Shape:
        defs = self.model.values.name_defs(name, path)
        if not defs or len(defs) != 1:
            return None
        found = defs[0]
        if found.kind == "param":
            bound = env.get(name.value)
            return self.shape(bound[0], bound[1], bound[2], depth + 1) if bound else None
        if found.kind == "assign" and found.node is not None:
            return self.shape(found.node, found.path, env, depth + 1)  # type: ignore[arg-type]
        if found.kind == "elem" and type(found.node) is cst.Call:
            index = _element_index(found.path, name.value)
            call = found.node
            if index is not None and self.qualified(call.func, found.path) & _WHILE:  # type: ignore[attr-defined]
                return self._loop_result(call, index, found.path, env, depth)  # type: ignore[arg-type]
        return None

    def _call(self, call: cst.Call, path: Path, env: Env, depth: int) -> Shape:
        names = self.qualified(call.func, path)
        if names and all(n.startswith("tensorflow.") for n in names):
            return self._op(call, names, path, env, depth)
        return self._helper(call, path, env, depth)

    def _op(self, call: cst.Call, names: frozenset[str], path: Path, env: Env, depth: int) -> Shape:
        from jitlint.model.tf.model import call_argument  # the model imports this package

        if names <= _MAKERS:
            shape = call_argument(call, 0, "dims" if names <= {"tensorflow.fill"} else "shape")
            return self.dims(shape.value, path, env) if shape else None
        if names <= _LIKE:
            first = call_argument(call, 0, "input")
            return self.shape(first.value, path, env, depth + 1) if first else None
        if names <= {"tensorflow.reshape"}:
            shape = call_argument(call, 1, "shape")
            return self.dims(shape.value, path, env, reshape=True) if shape else None
        if names <= {"tensorflow.transpose"}:
            first, perm = call_argument(call, 0, "a"), call_argument(call, 1, "perm")
            if first is None or perm is None:
                return None
            inner = self.shape(first.value, path, env, depth + 1)
            order = _literal_ints(perm.value)
            if inner is None or order is None or sorted(order) != list(range(len(inner))):
                return None
            return tuple(inner[i] for i in order)
        if names <= _REDUCE:
            return self._reduce(call, path, env, depth)
        if names <= _CROP_OR_PAD:
            first = call_argument(call, 0, "image")
            height = call_argument(call, 1, "target_height")
            width = call_argument(call, 2, "target_width")
            if first is None or height is None or width is None:
                return None
            inner = self.shape(first.value, path, env, depth + 1)
            if inner is None or len(inner) != 4:
                return None
            return (
                inner[0],
                self.dim(height.value, path, env),
                self.dim(width.value, path, env),
                inner[3],
            )
        return None

    def _reduce(self, call: cst.Call, path: Path, env: Env, depth: int) -> Shape:
        from jitlint.model.tf.model import call_argument

        first = call_argument(call, 0, "input_tensor")
        axis = call_argument(call, 1, "axis")
        keep = call_argument(call, 2, "keepdims")
        if first is None or axis is None:
            return None
        inner = self.shape(first.value, path, env, depth + 1)
        if inner is None or type(axis.value) is not cst.Integer:
            return None
        index = int(axis.value.value, 0)  # type: ignore[attr-defined]
        if not -len(inner) <= index < len(inner):
            return None
        index %= len(inner)
        kept = keep is not None and type(keep.value) is cst.Name and keep.value.value == "True"  # type: ignore[attr-defined]
        if kept:
            return (*inner[:index], 1, *inner[index + 1 :])
        if keep is not None and not (type(keep.value) is cst.Name and keep.value.value == "False"):  # type: ignore[attr-defined]
            return None
        return (*inner[:index], *inner[index + 1 :])

    def _loop_result(self, call: cst.Call, index: int, path: Path, env: Env, depth: int) -> Shape:
        """Element `index` of a `tf.while_loop`'s result: its shape invariant when one is
        stated, else its initial value's shape (a loop keeps its variables' shapes)."""
        from jitlint.model.tf.model import call_argument

        invariants = call_argument(call, 4, "shape_invariants")
        if invariants is not None:
            item = _item(invariants.value, index)
            if item is None:
                return None
            if type(item) is cst.Call and self.qualified(item.func, path) & {
                "tensorflow.TensorShape"
            }:
                return self.dims(item.args[0].value, path, env) if item.args else None
            return None
        loop_vars = call_argument(call, 2, "loop_vars")
        item = _item(loop_vars.value, index) if loop_vars is not None else None
        return self.shape(item, path, env, depth + 1) if item is not None else None

    def _helper(self, call: cst.Call, path: Path, env: Env, depth: int) -> Shape:
        """A module helper's result at this call: its one return, with its parameters
        bound to this call's arguments."""
        from jitlint.model.tf.repeats import bind

        if type(call.func) is not cst.Name:
            return None
        found = self.model.resolve_function(call.func, path)
        if found is None or type(found[0]) is not cst.FunctionDef:
            return None
        func = found[0]
        returned = _last_return(func)
        if returned is None:
            return None
        if type(func.params.star_arg) is cst.Param:
            return None
        inner: Env = {}
        for param, arg in bind(func, call, 0):
            inner[param] = (arg, path, env)
        base = self.model.scope_path(func)[:-1]
        return self.shape(returned[0], (*base, *returned[1]), inner, depth + 1)

    # ----- dimensions -------------------------------------------------------------------

    def dims(self, expr: cst.BaseExpression, path: Path, env: Env, reshape: bool = False) -> Shape:
        if type(expr) not in (cst.List, cst.Tuple):
            return None
        out: list[Dim] = []
        for element in expr.elements:  # type: ignore[attr-defined]
            if type(element) is cst.StarredElement:
                return None
            value = element.value
            if (
                reshape
                and type(value) is cst.UnaryOperation
                and type(value.operator) is cst.Minus
                and type(value.expression) is cst.Integer
                and value.expression.value == "1"
            ):
                out.append(REST)
                continue
            out.append(self.dim(value, path, env))
        if reshape and sum(1 for d in out if d is REST) > 1:
            return None
        return tuple(out)

    def dim(self, expr: cst.BaseExpression, path: Path, env: Env) -> Dim:
        kind = type(expr)
        if kind is cst.Integer:
            return int(expr.value, 0)  # type: ignore[attr-defined]
        if kind is cst.Name:
            defs = self.model.values.name_defs(expr, path)
            if defs is not None and len(defs) != 1:
                return None  # assigned on some paths only
            if defs and defs[0].kind == "param":
                bound = env.get(expr.value)  # type: ignore[attr-defined]
                return self.dim(bound[0], bound[1], bound[2]) if bound else None
            found = self.names.lookup_with_path(expr.value, path)  # type: ignore[attr-defined]
            if found is None:
                return None
            return Sym(expr.value, id(found[1][-1]))  # type: ignore[attr-defined]
        return None


def _element_index(assign_path: Path, name: str) -> int | None:
    """Which element of a tuple target `name` is in `a, name = ...`."""
    statement = assign_path[-1] if assign_path else None
    if type(statement) is not cst.Assign or len(statement.targets) != 1:
        return None
    target = statement.targets[0].target
    if type(target) not in (cst.Tuple, cst.List):
        return None
    for index, element in enumerate(target.elements):  # type: ignore[attr-defined]
        if type(element) is cst.StarredElement:
            return None
        if type(element.value) is cst.Name and element.value.value == name:
            return index
    return None


def _item(expr: cst.BaseExpression, index: int) -> cst.BaseExpression | None:
    if type(expr) not in (cst.List, cst.Tuple):
        return None
    elements = expr.elements  # type: ignore[attr-defined]
    if index >= len(elements) or any(type(e) is cst.StarredElement for e in elements):
        return None
    return elements[index].value


def _literal_ints(expr: cst.BaseExpression) -> list[int] | None:
    if type(expr) not in (cst.List, cst.Tuple):
        return None
    out = []
    for element in expr.elements:  # type: ignore[attr-defined]
        if type(element.value) is not cst.Integer:
            return None
        out.append(int(element.value.value, 0))
    return out


def _last_return(
    func: cst.FunctionDef,
) -> tuple[cst.BaseExpression, tuple[cst.CSTNode, ...]] | None:
    """A def's one `return`, the last statement of its body, with the path below `func`."""
    body = func.body
    if type(body) is not cst.IndentedBlock or not body.body:
        return None
    last = body.body[-1]
    if type(last) is not cst.SimpleStatementLine or type(last.body[-1]) is not cst.Return:
        return None
    returned = last.body[-1].value
    if returned is None or _returns_elsewhere(body, last):
        return None
    return returned, (func, body, last, last.body[-1])


def _returns_elsewhere(block: cst.CSTNode, last: cst.CSTNode) -> bool:
    from jitlint.python.walker import iter_children

    stack = [c for c in iter_children(block) if c is not last]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Return:
            return True
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        stack.extend(iter_children(node))
    return False
