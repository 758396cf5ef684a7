from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import PYTREE, TRACED
from jitlint.model.jax.api import DELETED_ARRAY_ATTRIBUTES, DELETED_ARRAY_CALLS
from jitlint.model.jax.jit import Donation, JitApplication, donation
from jitlint.python.names import leaf_name
from jitlint.python.uses import (
    bound_names,
    first_use,
    leaves_after,
    loop_around,
    statement_in_block,
)
from jitlint.rules.base import Rule


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
    The fix stops donating that argument: it drops its entry from the literal
    `donate_argnums`/`donate_argnames` of the `jax.jit` application (the whole option when
    it was the only entry). Results do not change, only memory: the call no longer reuses
    the argument's buffer for its outputs, so peak memory grows by that buffer, which may
    not fit where donation was needed. So it is unsafe. Binding the name to the result, or
    keeping a copy, may be what was meant instead; no fix is offered when the entry is
    spelled both ways or the call is not written out.

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
    fix_availability = "sometimes"
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
        found = statement_in_block(path)
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
                fix = _undonate(self.ctx.module, app, at, keyword, arg.value.value)
                self._check(node, arg.value, donated, statement, block, index, path, fix)

    def _check(
        self,
        call: cst.Call,
        name_node: cst.Name,
        donated: Donation,
        statement: cst.CSTNode,
        block: list[cst.CSTNode],
        index: int,
        path: list[cst.CSTNode],
        fix: NodeFix | None,
    ) -> None:
        trace = self.ctx.tracing.any_function_at(path)
        if trace is None or trace.value(name_node).kind not in (TRACED, PYTREE):
            return
        name = name_node.value
        if name in bound_names(statement):
            return  # `params = step(params)`: bound to the result
        callee = self.ctx.module.code_for_node(call.func)
        spec = ", ".join(self.ctx.module.code_for_node(a).rstrip(", ") for a in donated.options)
        where = f"`{callee}` ({spec}) at line {self.ctx.tracing.line(call)}"
        for later in block[index + 1 :]:
            event = first_use(later, name, DELETED_ARRAY_ATTRIBUTES, DELETED_ARRAY_CALLS)
            if event == "write":
                return
            if event is not None:
                self.report(
                    event,
                    f"`{name}` was donated to {where}: the call deleted its buffer, and this "
                    "read raises RuntimeError: Array has been deleted",
                    help=f"bind `{name}` to the result, copy it before the call "
                    f"(`{name}.copy()`), or stop donating it",
                    fix=fix,
                )
                return
        loop = loop_around(path, block)
        if loop is not None and not leaves_after(block, index) and name not in bound_names(loop):
            self.report(
                name_node,
                f"`{name}` is donated to {where} on every iteration, but the loop never binds "
                "it again: the second call gets a deleted buffer (ValueError: Buffer has been "
                "deleted or donated)",
                help=f"bind `{name}` to the result (`{name} = {callee}({name}, ...)`), or "
                "donate a fresh array each time",
                fix=fix,
            )


def _undonate(
    module: cst.Module,
    app: JitApplication,
    position: int | None,
    keyword: str | None,
    name: str,
) -> NodeFix | None:
    """Drop the one literal entry that donates this argument from the jit application."""
    call = app.node
    sig = app.signature
    if type(call) is not cst.Call:
        return None
    if sig is not None:
        if position is None and keyword in sig.positional:
            position = sig.positional.index(keyword)
        if keyword is None and position is not None and position < len(sig.positional):
            keyword = sig.positional[position]
    count = len(sig.positional) if sig is not None else None
    found: list[tuple[cst.Arg, int]] = []
    for arg in call.args:  # type: ignore[attr-defined]
        option = arg.keyword.value if arg.keyword is not None else None
        if option not in ("donate_argnums", "donate_argnames"):
            continue
        elements = _elements(arg.value)
        for index, element in enumerate(elements):
            if option == "donate_argnames":
                if type(element) is cst.SimpleString and element.evaluated_value == keyword:
                    found.append((arg, index))
            elif position is not None and _int(element) in _spellings(position, count):
                found.append((arg, index))
    if len(found) != 1:
        return None
    arg, index = found[0]
    elements = _elements(arg.value)
    args = list(call.args)  # type: ignore[attr-defined]
    if len(elements) == 1:
        at = args.index(arg)
        removed = args.pop(at)
        if at == len(args) and args:
            args[-1] = args[-1].with_changes(comma=removed.comma)
    else:
        items = list(arg.value.elements)  # type: ignore[attr-defined]
        dropped = items.pop(index)
        if index == len(items):
            items[-1] = items[-1].with_changes(comma=dropped.comma)
        if type(arg.value) is cst.Tuple and len(items) == 1:
            items[0] = items[0].with_changes(comma=cst.Comma())
        args[args.index(arg)] = arg.with_changes(value=arg.value.with_changes(elements=items))
    new: cst.CSTNode = call.with_changes(args=args)
    if len(args) == 1 and leaf_name(call.func) == "partial":  # type: ignore[attr-defined]
        new = args[0].value  # `partial(jax.jit)` is `jax.jit`
    return NodeFix(
        "unsafe",
        f"Stop donating `{name}`",
        ((call, module.code_for_node(new)),),
    )


def _elements(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    if type(value) in (cst.Tuple, cst.List):
        return [e.value for e in value.elements]  # type: ignore[attr-defined]
    return [value]


def _int(expr: cst.BaseExpression) -> int | None:
    if type(expr) is cst.Integer:
        return int(expr.value, 0)  # type: ignore[attr-defined]
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        inner = _int(expr.expression)  # type: ignore[attr-defined]
        return -inner if inner is not None else None
    return None


def _spellings(position: int, count: int | None) -> set[int]:
    """The literal entries that name `position`: itself, and its negative twin."""
    return {position} if count is None else {position, position - count}
