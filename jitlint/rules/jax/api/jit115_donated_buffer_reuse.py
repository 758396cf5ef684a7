from __future__ import annotations

import libcst as cst

from jitlint.model.domain.values import PYTREE, TRACED
from jitlint.model.jax.api import SHAPE_ATTRIBUTES
from jitlint.model.jax.jit import Donation, donation
from jitlint.rules.base import Rule

_STATEMENTS = (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)
# What still works on a deleted array [observed on jax 0.10.2]: its metadata, not its data.
_METADATA = SHAPE_ATTRIBUTES | {"is_deleted"}
_METADATA_CALLS = frozenset({"len", "isinstance", "type", "id"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)  # fmt: skip


class DonatedBufferReuse(Rule):
    """
    ## What it does
    Checks calls of a function jitted with `donate_argnums`/`donate_argnames` from Python
    code: a JAX array passed by name in a donated position (or by the keyword of a donated
    parameter) must not be read after the call unless the name is bound again first, and a
    call in a loop must not donate the same name on every iteration.

    ## Why is this bad
    Donation hands the argument's buffer to XLA to reuse for the outputs, and JAX deletes the
    array. Reading it afterwards raises, and so does donating it a second time:

    ```text
    RuntimeError: Array has been deleted with shape=float32[3].
    ValueError: INVALID_ARGUMENT: Invalid buffer passed to Execute() as argument 0 to
    replica 0: INVALID_ARGUMENT: Buffer has been deleted or donated.
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    def update(params, grads):
        return params - 0.1 * grads


    step = jax.jit(update, donate_argnums=0)

    params = jnp.ones(3)
    new_params = step(params, jnp.ones(3))
    print(params + new_params)  # error: JIT115
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    def update(params, grads):
        return params - 0.1 * grads


    step = jax.jit(update, donate_argnums=0)

    params = jnp.ones(3)
    old = params.copy()  # keep what is still needed before donating
    params = step(params, jnp.ones(3))
    print(old + params)
    ```

    ## Fix safety
    There is no fix: whether to keep a copy, stop donating, or rebind the name depends on
    what the program means.

    ## Known problems
    Only names are followed, within the block of the call (a read in a later statement of
    the same block, or the next iteration of the loop around it); a read inside a nested
    function, or through another name for the same array, is not seen. The argument must be
    a JAX array (or a pytree of them) as far as the model knows: NumPy arrays and Python
    values are copied to the device and never deleted, so unknown values are not reported.
    Calls inside traced code are not checked: donation applies only to the outermost
    compiled call. `jax.pmap`'s `donate_argnums` is not checked.
    """

    code = "JIT115"
    name = "donated-buffer-reuse"
    summary = "A donated argument is used after the call deleted its buffer."
    tier = 2
    requires = ("donate_arg",)
    runtime_error = "Array has been deleted"

    VALID = (
        # The idiom: the donated name is bound to the result.
        """
import jax
import jax.numpy as jnp
step = jax.jit(lambda p, g: p - g, donate_argnums=0)
params = jnp.ones(3)
for _ in range(3):
    params = step(params, jnp.ones(3))
print(params)
""",
        # NumPy arrays are copied to the device: the host array survives.
        """
import jax
import numpy as np
step = jax.jit(lambda p: p * 2, donate_argnums=0)
params = np.ones(3)
out = step(params)
print(params + out)
""",
        # The name is bound again before it is read.
        """
from functools import partial
import jax
import jax.numpy as jnp
@partial(jax.jit, donate_argnames="state")
def advance(state, x):
    return state + x
state = jnp.zeros(3)
nxt = advance(state, 1.0)
state = nxt * 2
print(state)
""",
        # Not donated: a different position.
        """
import jax
import jax.numpy as jnp
step = jax.jit(lambda p, g: p - g, donate_argnums=1)
params = jnp.ones(3)
grads = jnp.ones(3)
out = step(params, grads)
print(params)
""",
        # Inside traced code donation is ignored.
        """
import jax
import jax.numpy as jnp
inner = jax.jit(lambda p: p * 2, donate_argnums=0)
@jax.jit
def outer(x):
    y = inner(x)
    return x + y
outer(jnp.ones(3))
""",
        # Metadata survives the deletion.
        """
import jax
import jax.numpy as jnp
step = jax.jit(lambda p: p * 2, donate_argnums=0)
params = jnp.ones(3)
out = step(params)
print(params.shape, params.dtype, len(params), params is None)
""",
        # A loop that leaves after the call.
        """
import jax
import jax.numpy as jnp
step = jax.jit(lambda p: p * 2, donate_argnums=0)
params = jnp.ones(3)
while True:
    out = step(params)
    break
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp
step = jax.jit(lambda p, g: p - g, donate_argnums=(0,))
params = jnp.ones(3)
new = step(params, jnp.ones(3))
delta = new - params  # error: JIT115
""",
        # Donated by keyword: jax 0.10.2 donates it too.
        """
from functools import partial
import jax
import jax.numpy as jnp
@partial(jax.jit, donate_argnums=0)
def scale(x, factor):
    return x * factor
x = jnp.ones(3)
y = scale(x=x, factor=2.0)
print(x)  # error: JIT115
""",
        # Donated on every iteration without being bound again.
        """
import jax
import jax.numpy as jnp
step = jax.jit(lambda buf, i: buf + i, donate_argnums=0)
buf = jnp.zeros(3)
for i in range(3):
    out = step(buf, i)  # error: JIT115
""",
        # The result of another jitted call is a JAX array too.
        """
import jax
import jax.numpy as jnp
make = jax.jit(lambda: jnp.zeros(4))
consume = jax.jit(lambda a: a.sum(), donate_argnums=0)
def run():
    a = make()
    total = consume(a)
    return total, a  # error: JIT115
run()
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or type(node.func) not in (cst.Name, cst.Call):
            return
        path = self.ctx.path_to(node)
        app = self.ctx.jit.jitted_callee(node, path)
        if app is None:
            return
        donated = donation(app)
        if donated is None or self.ctx.tracing.function_at(path) is not None:
            return
        found = _statement(path)
        if found is None:
            return
        statement, block, index = found
        position = 0
        for arg in node.args:
            if arg.star:
                return  # positions past a *args are unknown
            keyword = arg.keyword.value if arg.keyword is not None else None
            at = position if keyword is None else None
            position += keyword is None
            if type(arg.value) is cst.Name and donated.donates(at, keyword):
                self._check(node, arg.value, donated, statement, block, index, path)

    def _check(
        self,
        call: cst.Call,
        name_node: cst.Name,
        donated: Donation,
        statement: cst.CSTNode,
        block: list[cst.CSTNode],
        index: int,
        path: list[cst.CSTNode],
    ) -> None:
        trace = self.ctx.tracing.any_function_at(path)
        if trace is None or trace.value(name_node).kind not in (TRACED, PYTREE):
            return
        name = name_node.value
        if name in _writes(statement):
            return  # `params = step(params)`: bound to the result
        callee = self.ctx.module.code_for_node(call.func)
        spec = ", ".join(self.ctx.module.code_for_node(a).rstrip(", ") for a in donated.options)
        where = f"`{callee}` ({spec}) at line {self.ctx.tracing.line(call)}"
        for later in block[index + 1 :]:
            event = _first_event(later, name)
            if event == "write":
                return
            if event is not None:
                self.report(
                    event,
                    f"`{name}` was donated to {where}: the call deleted its buffer, and this "
                    "read raises RuntimeError: Array has been deleted",
                    help=f"bind `{name}` to the result, copy it before the call "
                    f"(`{name}.copy()`), or stop donating it",
                )
                return
        loop = _loop_around(path, block)
        if loop is not None and not _leaves(block, index) and name not in _writes(loop):
            self.report(
                name_node,
                f"`{name}` is donated to {where} on every iteration, but the loop never binds "
                "it again: the second call gets a deleted buffer (ValueError: Buffer has been "
                "deleted or donated)",
                help=f"bind `{name}` to the result (`{name} = {callee}({name}, ...)`), or "
                "donate a fresh array each time",
            )


def _statement(path: list[cst.CSTNode]) -> tuple[cst.CSTNode, list[cst.CSTNode], int] | None:
    """The statement holding the end of `path`, the statements of its block (a simple line
    stands for its small statement when it has one), and its index there; None when the call
    sits in a nested scope or in a compound statement's header."""
    for position in range(len(path) - 2, -1, -1):
        node = path[position]
        if isinstance(node, _SCOPES):
            return None
        if isinstance(node, _STATEMENTS) and type(path[position - 1]) is cst.SimpleStatementLine:
            line = path[position - 1]
            if len(line.body) != 1:  # type: ignore[attr-defined]
                return None
            statements = list(path[position - 2].body)  # type: ignore[attr-defined]
            if line not in statements:
                return None
            return node, statements, statements.index(line)
        if isinstance(node, cst.BaseCompoundStatement):
            return None
    return None


def _loop_around(path: list[cst.CSTNode], block: list[cst.CSTNode]) -> cst.CSTNode | None:
    """The `for`/`while` whose body is `block`, if it is one."""
    for position in range(len(path) - 1, 0, -1):
        node = path[position]
        if type(node) is cst.IndentedBlock and list(node.body) == block:  # type: ignore[attr-defined]
            owner = path[position - 1]
            return owner if type(owner) in (cst.For, cst.While) else None
    return None


def _leaves(block: list[cst.CSTNode], index: int) -> bool:
    """Whether the loop body leaves (break/return/raise) after the call, at its own level."""
    for statement in block[index + 1 :]:
        if type(statement) is cst.SimpleStatementLine and any(
            type(s) in (cst.Break, cst.Return, cst.Raise)
            for s in statement.body  # type: ignore[attr-defined]
        ):
            return True
    return False


def _writes(node: cst.CSTNode) -> set[str]:
    """Names bound anywhere in `node` (outside nested scopes)."""
    events = _Events("")
    node.visit(events)
    return events.written


def _first_event(node: cst.CSTNode, name: str) -> cst.Name | str | None:
    """The first thing `node` does with `name`, in evaluation order: the Name node of a read,
    "write" for a binding, None when it does not touch it."""
    events = _Events(name)
    node.visit(events)
    return events.first


class _Events(cst.CSTVisitor):
    """Reads and bindings of names, values before targets; nested scopes are skipped."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.first: cst.Name | str | None = None
        self.written: set[str] = set()

    def _event(self, event: cst.Name | str) -> None:
        if self.first is None:
            self.first = event

    def _target(self, target: cst.CSTNode) -> None:
        kind = type(target)
        if kind is cst.Name:
            self.written.add(target.value)  # type: ignore[attr-defined]
            if target.value == self.name:  # type: ignore[attr-defined]
                self._event("write")
        elif kind in (cst.Tuple, cst.List):
            for element in target.elements:  # type: ignore[attr-defined]
                self._target(element.value)
        elif kind is cst.StarredElement:
            self._target(target.value)  # type: ignore[attr-defined]
        else:
            target.visit(self)  # `a[i] = v` / `a.x = v` read `a`

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self._event(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if not (_is_name(node.value, self.name) and node.attr.value in _METADATA):
            node.value.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if (
            type(func) is cst.Name
            and func.value in _METADATA_CALLS
            and node.args
            and _is_name(node.args[0].value, self.name)
        ):
            for arg in node.args[1:]:
                arg.visit(self)
            return False
        return True

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        if _is_name(node.left, self.name) and all(
            type(c.operator) in (cst.Is, cst.IsNot) for c in node.comparisons
        ):
            for comparison in node.comparisons:
                comparison.comparator.visit(self)
            return False
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._target(node.name)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._target(node.name)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> bool:
        node.value.visit(self)
        for target in node.targets:
            self._target(target.target)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            node.value.visit(self)
            self._target(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        node.target.visit(self)  # read first
        node.value.visit(self)
        self._target(node.target)
        return False

    def visit_For(self, node: cst.For) -> bool:
        node.iter.visit(self)
        self._target(node.target)
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_WithItem(self, node: cst.WithItem) -> bool:
        node.item.visit(self)
        if node.asname is not None:
            self._target(node.asname.name)
        return False

    def visit_Del(self, node: cst.Del) -> bool:
        self._target(node.target)
        return False

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        bound = node.asname.name if node.asname is not None else node.name
        while type(bound) is cst.Attribute:
            bound = bound.value  # type: ignore[attr-defined]
        self._target(bound)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        node.value.visit(self)
        self._target(node.target)
        return False


def _is_name(expr: cst.CSTNode, name: str) -> bool:
    return type(expr) is cst.Name and expr.value == name  # type: ignore[attr-defined]
